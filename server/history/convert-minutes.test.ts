import { beforeAll, describe, expect, it } from "vitest";
import type { UsageReport } from "@/lib/domain/usage-types";
import { db } from "@/server/core/db";
import { convertLegacyMinutes } from "@/server/history/convert-minutes";
import { rollupHours } from "@/server/history/hour-tally";
import { HOUR_MS, MINUTE_MS, type MinuteRow } from "@/server/minutes/minute-row";
import { upsertHourRows, upsertMinuteRows } from "@/server/history/rollup-store";
import { readMinutes } from "@/server/minutes/minute-store";
import { getUsageReport } from "@/server/history/usage-report";
import { ensureLocalHost, recordHostInventory } from "@/server/hosts/host-registry";
import { makeGpu, makeReadMinute, uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Minutes an older gpudesk kept one row each (the "GpuMinute" table) moved
 * into minute blocks by the leader's one-time conversion: none lost, none
 * doubled, the usage report's figures the same. Bookings cover whole hours,
 * so that the minutes and the hours (which credit an hour to whoever held
 * most of it) agree.
 */
const DAY_MS = 24 * HOUR_MS;
const NOW = Date.UTC(2026, 11, 4, 12, 0, 0);
const T0 = NOW - 5 * HOUR_MS;
const RANGE = { choice: "custom" as const, fromMs: T0, toMs: T0 + 3 * HOUR_MS };

let hostId: string;
let gpus: string[];

/** Rows as the older version stored them, and their hours as it made them. */
async function storeLegacy(rows: MinuteRow[]): Promise<void> {
  await db().legacyGpuMinute.createMany({ data: rows.map((row) => ({ ...row, runnerUserId: row.runnerUserId ?? null })) });
  await upsertHourRows(db(), rollupHours(rows));
}

function hoursOf(gpuUuid: string, hours: number, from = T0): MinuteRow[] {
  return Array.from({ length: hours * 60 }, (_, i) =>
    makeReadMinute(gpuUuid, from + i * MINUTE_MS, { hostId, utilAvg: (i * 37) % 101, utilMax: 100, powerAvg: 100 + i / 3, busy: i % 4 !== 0, bookedByUserId: i < 60 ? "user-convert" : null }),
  );
}

/** The report's figures, rounded past the noise of summing in another order and of Float32 measures. */
function figures(report: UsageReport) {
  const round = (value: unknown): unknown =>
    typeof value === "number" ? Math.round(value * 1e4) / 1e4 : Array.isArray(value) ? value.map(round) : value && typeof value === "object" ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, round(v)])) : value;
  return round({ people: report.people, hosts: report.hosts, totals: report.totals });
}

const legacyCount = () => db().legacyGpuMinute.count({ where: { gpuUuid: { in: gpus } } });

beforeAll(async () => {
  await useTestDatabase();
  const host = await ensureLocalHost(uniqueName("convert"), false);
  hostId = host.id;
  const units = [makeGpu({ index: 0 }), makeGpu({ index: 1 })];
  await recordHostInventory(hostId, { name: host.name, driverVersion: null, cudaVersion: null }, units, new Date(T0));
  gpus = units.map((gpu) => gpu.uuid);
}, 60_000);

describe("converting minutes of an older version into blocks", () => {
  it("moves every row, and the usage report says the same from the hours before and after, and from the minutes after", async () => {
    const rows = [...hoursOf(gpus[0]!, 3), ...hoursOf(gpus[1]!, 2)];
    await storeLegacy(rows);
    const byHours = { range: RANGE, groupBy: "host" as const, nowMs: NOW, minuteRetentionMs: 0 };
    const before = await getUsageReport(byHours);
    expect(before.range.source).toBe("hour");

    expect(await convertLegacyMinutes()).toBeGreaterThanOrEqual(rows.length);
    expect(await legacyCount()).toBe(0);
    expect(await db().gpuMinuteBlock.count({ where: { gpuUuid: { in: gpus } } })).toBe(5);
    const stored = await readMinutes(db(), T0, T0 + 3 * HOUR_MS, gpus);
    expect(stored).toHaveLength(rows.length);
    expect(stored.reduce((sum, row) => sum + row.samples, 0)).toBe(rows.reduce((sum, row) => sum + row.samples, 0));

    const after = await getUsageReport(byHours);
    expect(after).toEqual(before);
    const fromMinutes = await getUsageReport({ ...byHours, minuteRetentionMs: DAY_MS });
    expect(fromMinutes.range.source).toBe("minute");
    expect(figures(fromMinutes)).toEqual(figures(before));
  });

  it("goes on after a stop between two batches, losing and doubling nothing", async () => {
    const from = T0 + 3 * HOUR_MS;
    const rows = [...hoursOf(gpus[0]!, 2, from), ...hoursOf(gpus[1]!, 2, from)];
    await storeLegacy(rows);
    const stop = new AbortController();
    await convertLegacyMinutes({ gpuHoursPerBatch: 1, signal: stop.signal, pause: async () => stop.abort() });
    expect(await legacyCount()).toBe(rows.length - 60);
    await convertLegacyMinutes();
    expect(await legacyCount()).toBe(0);
    const stored = await readMinutes(db(), from, from + 2 * HOUR_MS, gpus);
    expect(stored.map((row) => [row.gpuUuid, row.minute.getTime(), row.samples])).toEqual(
      [...rows].sort((a, b) => a.gpuUuid.localeCompare(b.gpuUuid) || a.minute.getTime() - b.minute.getTime()).map((row) => [row.gpuUuid, row.minute.getTime(), row.samples]),
    );
  });

  it("merges an old minute into a block written since the upgrade, and recomputes that hour", async () => {
    const hourMs = T0 - 2 * HOUR_MS;
    const [uuid] = gpus as [string];
    await upsertMinuteRows(db(), [makeReadMinute(uuid, hourMs + 10 * MINUTE_MS, { hostId, samples: 6, utilAvg: 90 }), makeReadMinute(uuid, hourMs + 11 * MINUTE_MS, { hostId, samples: 12, utilAvg: 30 })]);
    await storeLegacy([makeReadMinute(uuid, hourMs + 9 * MINUTE_MS, { hostId, samples: 12, utilAvg: 60 }), makeReadMinute(uuid, hourMs + 10 * MINUTE_MS, { hostId, samples: 6, utilAvg: 50 })]);
    await convertLegacyMinutes();
    const stored = await readMinutes(db(), hourMs, hourMs + HOUR_MS, [uuid]);
    expect(stored.map((row) => [row.minute.getTime() - hourMs, row.samples, row.utilAvg])).toEqual([
      [9 * MINUTE_MS, 12, 60],
      [10 * MINUTE_MS, 12, 70],
      [11 * MINUTE_MS, 12, 30],
    ]);
    const hour = await db().gpuHour.findUniqueOrThrow({ where: { gpuUuid_hour: { gpuUuid: uuid, hour: new Date(hourMs) } } });
    expect(hour.samples).toBe(3);
    expect(hour.utilAvg).toBeCloseTo(160 / 3, 9);
  });
});
