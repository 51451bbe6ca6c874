import { z } from "zod";
import { text } from "@/lib/domain/plain-text";
import type { BookingEfficiency } from "@/lib/domain/usage-types";
import { db } from "@/server/core/db";
import { chunks } from "@/lib/chunks";
import { readColumnBlocks } from "@/server/minutes/minute-store";
import { HOUR_MS, MINUTE_MS, floorTo } from "@/server/minutes/minute-row";
import { num } from "@/server/core/sql-dialect";
import { can } from "@/server/access/permissions";
import { readVisibleBookingIds } from "@/server/bookings/store/booking-rows";
import { readHourlyUseOfParts, readUnitSpansOfParts } from "@/server/bookings/store/booked-units";

/** GET /api/v1/usage/reservations: `?ids=a,b,c`. */
export const efficiencyQuerySchema = z.object({
  ids: text()
    .max(20_000)
    .transform((text) => text.split(",").map((id) => id.trim()).filter(Boolean))
    .pipe(z.array(text().max(64)).min(1).max(500)),
});

/** Ids per query: the IN list stays far below parameter limits. */
const MAX_IDS = 500;
/**
 * Bookings whose minutes one query reads: one query for a page of them
 * rather than two per booking (947 ms for 200 at load 9, 6 December), and
 * at most a few dozen bookings' minutes decoded at once.
 */
const SPANS_PER_READ = 25;

/**
 * Mean utilization of the booked GPUs during each booking, over the
 * minutes of [startsAt, endsAt) that have readings (a booking not started
 * yet, or whose GPUs never reported, gets null). Minutes are used while they
 * are kept; for a booking whose minutes are gone, the hourly rollups that
 * start within it. One aggregate query over the hours for the whole list; the minutes a few dozen bookings at a read.
 *
 * For the bookings pages: `bookingEfficiency(ids)` and show
 * `meanUtilPct` next to each booking (e.g. "mean use 34 %").
 */
export async function bookingEfficiency(bookingIds: string[]): Promise<Map<string, BookingEfficiency>> {
  const result = new Map<string, BookingEfficiency>();
  const ids = [...new Set(bookingIds)].slice(0, MAX_IDS);
  for (const id of ids) result.set(id, { reservationId: id, meanUtilPct: null, coveredGpuMinutes: 0 });
  if (ids.length === 0) return result;

  // Minutes are packed by GPU-hour (minute-block.ts): the kept minutes of each booking's GPUs over its time, read as
  // columns, the blocks of a few dozen bookings in one query (a block two of them share is read and decoded once).
  const booked = await readUnitSpansOfParts(db(), ids);
  const spans = new Map<string, { id: string; fromMs: number; toMs: number; uuids: string[] }>();
  for (const rg of booked) {
    const key = `${rg.reservationId}\u0000${rg.startsAt.getTime()}\u0000${rg.endsAt.getTime()}`;
    const span = spans.get(key) ?? { id: rg.reservationId, fromMs: rg.startsAt.getTime(), toMs: rg.endsAt.getTime(), uuids: [] };
    span.uuids.push(rg.gpu.uuid);
    spans.set(key, span);
  }
  const fromMinutes = new Map<string, { u: number; n: number }>();
  for (const part of chunks([...spans.values()], SPANS_PER_READ)) {
    const blocks = await readColumnBlocks(
      db(),
      part.map((span) => ({ fromMs: floorTo(span.fromMs, HOUR_MS), toMs: span.toMs, gpuUuids: span.uuids })),
    );
    for (const span of part) {
      const sums = fromMinutes.get(span.id) ?? { u: 0, n: 0 };
      for (const uuid of span.uuids) {
        for (const block of blocks.get(uuid) ?? []) {
          const { offsets, utilAvg, hourMs } = block;
          for (let i = 0; i < offsets.length; i++) {
            const at = hourMs + offsets[i]! * MINUTE_MS;
            const util = utilAvg[i]!;
            if (at < span.fromMs || at >= span.toMs || Number.isNaN(util)) continue;
            sums.u += util;
            sums.n += 1;
          }
        }
      }
      fromMinutes.set(span.id, sums);
    }
  }
  for (const [id, { u, n }] of fromMinutes) {
    if (n > 0) result.set(id, { reservationId: id, meanUtilPct: u / n, coveredGpuMinutes: n });
  }

  const missing = ids.filter((id) => result.get(id)!.coveredGpuMinutes === 0);
  if (missing.length === 0) return result;
  const fromHours = await readHourlyUseOfParts(db(), missing);
  for (const row of fromHours) {
    const n = num(row.n);
    if (n > 0) result.set(row.id, { reservationId: row.id, meanUtilPct: num(row.u) / n, coveredGpuMinutes: n });
  }
  return result;
}

/** The efficiency of the bookings a person may see: their own, or any for an admin. Others are left out. */
export async function bookingEfficiencyFor(
  viewer: { id: string; role: string },
  bookingIds: string[],
): Promise<BookingEfficiency[]> {
  const visible = await readVisibleBookingIds(bookingIds.slice(0, MAX_IDS), can.seeAllUsage(viewer) ? null : viewer.id);
  const efficiency = await bookingEfficiency(visible);
  return [...efficiency.values()];
}
