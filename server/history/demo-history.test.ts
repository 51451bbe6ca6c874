import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/core/db";
import { fillSimulatedFleetHistory } from "@/server/history/demo-history";
import { HOUR_MS, MINUTE_MS } from "@/server/minutes/minute-row";
import { readMinutes } from "@/server/minutes/minute-store";
import { useTestDatabase } from "@/server/testing/test-db";

beforeAll(async () => {
  await useTestDatabase();
}, 60_000);

describe("demo history", () => {
  it("fills synthetic minutes and hours of the simulated fleet, marked simulated, once", async () => {
    const alice = await db().user.create({ data: { id: randomUUID(), name: "Alice", email: "alice@example.test", username: "alice", unixLogin: "alice" } });
    const nowMs = Date.UTC(2026, 10, 30, 12, 30, 0);
    const made = await fillSimulatedFleetHistory({ seed: 42, spanMs: 2 * HOUR_MS, nowMs });
    // The demo fleet: 8 + 4 + 4 GPUs, and the split H100 with its four slices (each a unit with
    // minutes of its own, as the live rollups write them), two hours of minutes.
    const units = 16 + 1 + 4;
    expect(made).toBe(units * 120);
    const minutes = await readMinutes(db(), 0, Date.UTC(2100, 0, 1));
    expect(minutes).toHaveLength(units * 120);
    expect(minutes.filter((minute) => !minute.simulated)).toHaveLength(0);
    expect(await db().gpu.count()).toBe(units);
    // A slice's minutes name who ran there: its processes carry its MIG UUID.
    const slices = await db().gpu.findMany({ where: { parentUuid: { not: null } }, select: { uuid: true, migProfile: true } });
    expect(slices.map((slice) => slice.migProfile).sort()).toEqual(["1g.10gb", "1g.10gb", "2g.20gb", "3g.40gb"]);
    const sliceUuids = new Set(slices.map((slice) => slice.uuid));
    const sliceBookers = minutes.filter((minute) => sliceUuids.has(minute.gpuUuid) && minute.bookedByUserId !== null);
    expect(new Set(sliceBookers.map((minute) => minute.gpuUuid)).size).toBeGreaterThanOrEqual(1);

    const ids = [...new Set(minutes.map((minute) => minute.bookedByUserId))];
    expect(ids).toContain(null);
    expect(ids.every((id) => id === null || id === alice.id || id.startsWith("sim:"))).toBe(true);

    // Every minute is in an hour, and the hours add up to the minutes.
    const hours = await db().gpuHour.findMany({ select: { gpuUuid: true, hour: true, samples: true, simulated: true } });
    expect(new Set(hours.map((h) => h.hour.getTime()))).toEqual(new Set([nowMs - 2.5 * HOUR_MS, nowMs - 1.5 * HOUR_MS, nowMs - 0.5 * HOUR_MS]));
    expect(hours.reduce((sum, h) => sum + h.samples, 0)).toBe(units * 120);
    expect(hours.every((h) => h.simulated)).toBe(true);
    expect(Math.max(...minutes.map((minute) => minute.minute.getTime()))).toBe(nowMs - MINUTE_MS);

    expect(await fillSimulatedFleetHistory({ seed: 42, spanMs: 2 * HOUR_MS, nowMs })).toBe(0);
  });
});
