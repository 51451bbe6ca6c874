import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/core/db";
import { sumMinutes, type MinuteSumSpec } from "@/server/history/minute-sums";
import { MINUTE_RULES } from "@/server/history/resolution";
import { HOUR_MS, MINUTE_MS, type MinuteRow } from "@/server/minutes/minute-row";
import { upsertMinuteRows } from "@/server/history/rollup-store";
import { readMinutes } from "@/server/minutes/minute-store";
import { ensureLocalHost, recordHostInventory } from "@/server/hosts/host-registry";
import { makeGpu, makeMinuteRow, uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The usage sums straight from a block's columns (issue 52) give the
 * figures the row path gave on the same history: the reference below is
 * the way they were summed until then (every minute decoded into a row, a
 * key string per minute, `MINUTE_RULES` on each row, a split GPU's minutes
 * left out where a slice reported), kept here as the yardstick.
 */

const T0 = Date.UTC(2026, 6, 14, 3, 0, 0);
const HOURS = 5;
let gpus: string[] = [];
let parent = "";
let slices: string[] = [];
const people = [`person-${randomUUID()}`, `person-${randomUUID()}`];

/** A deterministic, uneven history: gaps, nulls, several bookers, runners and hosts within an hour. */
function history(hostIds: string[]): MinuteRow[] {
  const rows: MinuteRow[] = [];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (const [g, uuid] of [...gpus, parent, ...slices].entries()) {
    for (let m = 0; m < HOURS * 60; m++) {
      const minuteMs = T0 + m * MINUTE_MS;
      const isSlice = slices.includes(uuid);
      // Slices report in the second half of each hour only: the parent's own minutes count in the first.
      if (isSlice && m % 60 < 30) continue;
      if (next() < 0.1) continue;
      const util = isSlice || next() < 0.08 ? null : Math.round(next() * 1000) / 10;
      const booker = next() < 0.3 ? null : people[Math.floor(next() * people.length)]!;
      rows.push(
        makeMinuteRow(uuid, hostIds[(g + (m > 150 ? 1 : 0)) % hostIds.length]!, minuteMs, {
          samples: 1 + Math.floor(next() * 12),
          utilAvg: util,
          utilMax: util,
          bookedByUserId: booker,
          runnerUserId: next() < 0.5 ? null : `runner-${Math.floor(next() * 3)}`,
          busy: next() < 0.4,
          simulated: g % 3 === 0,
        }),
      );
    }
  }
  return rows;
}

/** Today's row path, as it summed until the columns: the yardstick. */
async function reference(fromMs: number, toMs: number, spec: MinuteSumSpec) {
  const slicesOf = new Map((await db().gpu.findMany({ where: { parentUuid: { not: null } }, select: { uuid: true, parentUuid: true } })).map((gpu) => [gpu.uuid, gpu.parentUuid!]));
  const rows = await readMinutes(db(), fromMs, toMs);
  const sliced = new Set(rows.flatMap((row) => (slicesOf.has(row.gpuUuid) ? [`${slicesOf.get(row.gpuUuid)}\u0000${row.minute.getTime()}`] : [])));
  const parents = new Set(slicesOf.values());
  const sums = new Map<string, { minutes: number; utilMinutes: number; utilCounted: number; busyMinutes: number; idleMinutes: number; simulated: number }>();
  for (const row of rows) {
    if (spec.notWhileSliced && parents.has(row.gpuUuid) && sliced.has(`${row.gpuUuid}\u0000${row.minute.getTime()}`)) continue;
    if (spec.booker !== undefined && row.bookedByUserId !== spec.booker) continue;
    if (spec.unbooked && row.bookedByUserId !== null) continue;
    const parts: Record<string, string> = {
      bucket: String(MINUTE_RULES.bucket(row.minute.getTime(), spec.bucketMs ?? 1)),
      gpu: row.gpuUuid,
      host: row.hostId,
      booker: row.bookedByUserId ?? "",
      runner: row.runnerUserId ?? "",
    };
    const key = spec.by.map((field) => parts[field]).join("\u0000");
    const group = sums.get(key) ?? { minutes: 0, utilMinutes: 0, utilCounted: 0, busyMinutes: 0, idleMinutes: 0, simulated: 0 };
    group.minutes += MINUTE_RULES.minutes(row);
    group.utilMinutes += MINUTE_RULES.utilMinutes(row);
    group.utilCounted += MINUTE_RULES.utilCounted(row);
    group.busyMinutes += MINUTE_RULES.busyMinutes(row);
    group.idleMinutes += MINUTE_RULES.idleMinutes(row);
    group.simulated += row.simulated ? 1 : 0;
    sums.set(key, group);
  }
  return sums;
}

beforeAll(async () => {
  await useTestDatabase();
  const hosts = await Promise.all([0, 1, 2].map(() => ensureLocalHost(uniqueName("sums"), false)));
  const whole = [0, 1, 2, 3].map((index) => makeGpu({ index }));
  const split = makeGpu({ index: 4, migMode: "Enabled", utilizationGpuPct: null });
  const migs = ["3g.40gb", "4g.40gb"].map((profile, deviceIndex) =>
    makeGpu({ index: 4, uuid: `MIG-${randomUUID()}`, migMode: "Enabled", utilizationGpuPct: null, mig: { parentUuid: split.uuid, profile, gpuInstanceId: deviceIndex + 1, computeInstanceId: 0, deviceIndex } }),
  );
  await recordHostInventory(hosts[0]!.id, { name: hosts[0]!.name, driverVersion: null, cudaVersion: null }, [...whole, split, ...migs], new Date(T0));
  gpus = whole.map((gpu) => gpu.uuid);
  parent = split.uuid;
  slices = migs.map((gpu) => gpu.uuid);
  await upsertMinuteRows(db(), history(hosts.map((host) => host.id)));
}, 60_000);

const SPECS: Record<string, MinuteSumSpec> = {
  "the series by host (5-minute buckets)": { by: ["bucket", "host"], bucketMs: 5 * MINUTE_MS },
  "the series by model (minutes)": { by: ["bucket", "gpu"], bucketMs: MINUTE_MS },
  "the heatmap (5-minute buckets)": { by: ["gpu", "bucket"], bucketMs: 5 * MINUTE_MS },
  "the heatmap in 2-hour buckets": { by: ["gpu", "bucket"], bucketMs: 2 * HOUR_MS },
  "a member's own series": { by: ["bucket", "host"], bucketMs: 5 * MINUTE_MS, booker: people[0] },
  "the tables' GPU time": { by: ["booker", "host", "gpu"], notWhileSliced: true },
  "a member's GPU time": { by: ["booker", "host", "gpu"], booker: people[1], notWhileSliced: true },
  "use without a booking": { by: ["runner", "gpu"], unbooked: true, notWhileSliced: true },
};

const RANGES: [string, number, number][] = [
  ["the whole history", T0 - HOUR_MS, T0 + (HOURS + 1) * HOUR_MS],
  ["a range that starts and ends inside hours", T0 + 17 * MINUTE_MS, T0 + 3 * HOUR_MS + 41 * MINUTE_MS],
];

describe("usage sums from a block's columns", () => {
  for (const [name, spec] of Object.entries(SPECS)) {
    for (const [rangeName, fromMs, toMs] of RANGES) {
      it(`give today's figures for ${name} over ${rangeName}`, async () => {
        const expected = await reference(fromMs, toMs, spec);
        const found = await sumMinutes(fromMs, toMs, spec);
        expect(expected.size).toBeGreaterThan(0);
        expect([...found.keys()].sort()).toEqual([...expected.keys()].sort());
        for (const [key, sums] of expected) {
          const { group: _group, ...got } = found.get(key)!;
          // Whole minutes exactly; percent-minutes to far below a GPU-second (1/60 of a minute at 100 %).
          expect({ ...got, utilMinutes: 0 }).toEqual({ ...sums, utilMinutes: 0 });
          expect(Math.abs(got.utilMinutes - sums.utilMinutes)).toBeLessThan(1e-6);
        }
      });
    }
  }

  it("name each group by the fields it is grouped by", async () => {
    const found = await sumMinutes(T0, T0 + HOUR_MS, { by: ["booker", "host", "gpu"] });
    for (const [key, { group }] of found) expect(key).toBe([group.bookedByUserId ?? "", group.hostId, group.gpuUuid].join("\u0000"));
    const buckets = await sumMinutes(T0, T0 + HOUR_MS, { by: ["bucket", "host"], bucketMs: 5 * MINUTE_MS });
    for (const { group } of buckets.values()) expect(group.bucketStartMs % (5 * MINUTE_MS)).toBe(0);
  });

  it("refuse a bucket that is not whole minutes", () => {
    expect(() => sumMinutes(T0, T0 + HOUR_MS, { by: ["bucket"], bucketMs: 90_000 })).toThrow(/whole minutes/);
  });
});
