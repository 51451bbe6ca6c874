import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/core/db";
import { type HourRow } from "@/server/history/rollup-math";
import { HOUR_MS, MINUTE_MS, type MinuteRow } from "@/server/minutes/minute-row";
import { upsertHourRows, upsertMinuteRows } from "@/server/history/rollup-store";
import { readMinutes } from "@/server/minutes/minute-store";
import { gpuUuid } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The rows travel to the database as JSON (rollup-store.ts): what is read
 * back must be what was written, to the last bit for hours, and for minutes
 * to the last bit of the Float32 their blocks keep (minute-block.ts), since
 * an hour's tally (hour-tally.ts) is built from the stored values and must
 * match a recount from them.
 */

beforeAll(async () => {
  await useTestDatabase();
}, 60_000);

const AT = Date.UTC(2026, 10, 30, 9, 0, 0);
/** Doubles whose shortest decimal form has 16 or 17 digits, tiny and large ones. */
const AWKWARD = [1 / 3, 0.1 + 0.2, 200 / 3, 5e-324, 1.7976931348623157e308, 123456.78901234568, 99.99999999999999, 2 ** 53 + 2];

const FLOAT_MEASURES = ["utilAvg", "utilMax", "memUsedAvg", "memUsedMax", "memTotal", "powerAvg", "tempAvg", "tempMax"] as const;

function minuteRow(uuid: string, at: number, i: number): MinuteRow {
  const pick = (k: number) => AWKWARD[(i + k) % AWKWARD.length]!;
  return {
    gpuUuid: uuid,
    minute: new Date(at),
    hostId: "host-store",
    samples: 60,
    utilAvg: pick(0),
    utilMax: pick(1),
    memUsedAvg: pick(2),
    memUsedMax: pick(3),
    memTotal: i % 2 === 0 ? null : pick(4),
    powerAvg: pick(5),
    tempAvg: pick(6),
    tempMax: pick(7),
    bookedByUserId: i % 2 === 0 ? null : "user-1",
    runnerUserId: i % 3 === 0 ? "user-2" : null,
    busy: i % 2 === 1,
    simulated: i % 3 === 0,
  };
}

describe("rollup rows as stored", () => {
  it("reads back every minute and hour as written, an hour's doubles to the last bit and a minute's to Float32's, nulls and booleans as they were", async () => {
    const uuid = gpuUuid();
    const minutes = AWKWARD.map((_, i) => minuteRow(uuid, AT + i * MINUTE_MS, i));
    const written = await upsertMinuteRows(db(), minutes);
    const stored = await readMinutes(db(), AT, AT + HOUR_MS, [uuid]);
    const asFloat32 = minutes.map((row) => ({ ...row, ...Object.fromEntries(FLOAT_MEASURES.map((key) => [key, row[key] === null ? null : Math.fround(row[key])])) }));
    expect(stored.sort((a, b) => a.minute.getTime() - b.minute.getTime())).toEqual(asFloat32);
    expect(written).toEqual(stored);

    const hours: HourRow[] = minutes.map(({ minute, busy, ...rest }, i) => ({ ...rest, hour: new Date(AT + i * HOUR_MS), busyMinutes: busy ? 7 : 0 }));
    await upsertHourRows(db(), hours);
    const storedHours = await db().gpuHour.findMany({ where: { gpuUuid: uuid }, orderBy: { hour: "asc" } });
    expect(storedHours).toEqual(hours);
  });
});
