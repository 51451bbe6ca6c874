import { deflateRawSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/core/db";
import { convertLegacyMinutes } from "@/server/history/convert-minutes";
import { MinuteRollups } from "@/server/history/minute-rollups";
import { pruneHistory } from "@/server/history/retention";
import { HOUR_MS, MINUTE_MS } from "@/server/minutes/minute-row";
import { upsertMinuteRows, recomputeHours } from "@/server/history/rollup-store";
import { readMinutes } from "@/server/minutes/minute-store";
import { getUsageReport } from "@/server/history/usage-report";
import { getGpuHistory } from "@/server/history/gpu-history";
import { bookingEfficiency } from "@/server/history/booking-efficiency";
import { ensureLocalHost } from "@/server/hosts/host-registry";
import { decodeMinuteBlock, MinuteBlockError } from "@/server/minutes/minute-block";
import { unreadableBlockCounts } from "@/server/minutes/unreadable-blocks";
import { gpuUuid, makeGpu, makeReadMinute, makeSnapshot, uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

beforeAll(async () => {
  await useTestDatabase();
}, 60_000);

const DAY_MS = 24 * HOUR_MS;
const EVER = Date.UTC(2100, 0, 1);

/**
 * The three ways a stored block cannot be read (issue 48, items 3, 4, 7):
 * bytes that do not inflate, a version a newer gpudesk wrote (read after a
 * downgrade), and a small block that inflates to far more than any hour
 * (64 MiB here; the review's took a server from 225 to 1,255 MiB).
 */
const BAD_BLOCKS: Record<string, () => Buffer> = {
  "a corrupt block": () => Buffer.from([1, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x13, 0x37]),
  "a newer version's block": () => Buffer.concat([Buffer.of(2), deflateRawSync(Buffer.alloc(200, 7))]),
  "a deflate bomb": () => Buffer.concat([Buffer.of(1), deflateRawSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 })]),
};

/** Replaces a stored block's bytes, as a disk error, a downgrade or a tampered database would leave them. */
async function spoil(uuid: string, hourMs: number, bytes: Buffer): Promise<void> {
  const data = new Uint8Array(bytes);
  await db().gpuMinuteBlock.upsert({ where: { gpuUuid_hour: { gpuUuid: uuid, hour: new Date(hourMs) } }, update: { data }, create: { gpuUuid: uuid, hour: new Date(hourMs), data } });
}

const setAsideOf = (uuid: string) => db().gpuMinuteBlockSetAside.findMany({ where: { gpuUuid: uuid }, select: { hour: true, reason: true, data: true } });

describe("decoding a block", () => {
  it("stops inflating at the size of the largest real hour: a deflate bomb costs kilobytes, not its size", () => {
    const bomb = BAD_BLOCKS["a deflate bomb"]!();
    const before = process.memoryUsage().arrayBuffers;
    const started = performance.now();
    let error: unknown;
    try {
      decodeMinuteBlock("GPU-x", 0, bomb);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(MinuteBlockError);
    // Node's words for an inflate cut at maxOutputLength; the unbounded inflate read all 64 MiB and failed on its length.
    expect((error as Error).message).toMatch(/larger than \d+ bytes/);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("refuses a stored block longer than any hour deflates to, before inflating it", () => {
    const long = Buffer.concat([Buffer.of(1), Buffer.alloc(200_000)]);
    expect(() => decodeMinuteBlock("GPU-x", 0, long)).toThrow(/200001 bytes, more than any hour of minutes/);
  });
});

for (const [kind, bad] of Object.entries(BAD_BLOCKS)) {
  describe(`${kind} costs its GPU-hour of minute detail and nothing else`, () => {
    it("while a flush writes every other GPU's minutes, and the block's own new minutes, and keeps the block aside", async () => {
      const host = await ensureLocalHost(uniqueName("node"), false);
      // 120 GPUs: two transactions of a flush (100 GPUs a part). The spoiled GPU is in the first.
      const gpus = Array.from({ length: 120 }, () => makeGpu());
      const hourMs = Date.UTC(2026, 10, 30, 10) + Object.keys(BAD_BLOCKS).indexOf(kind) * DAY_MS;
      const spoiled = gpus[0]!.uuid;
      await upsertMinuteRows(db(), [makeReadMinute(spoiled, hourMs, { hostId: host.id })]);
      await spoil(spoiled, hourMs, bad());
      const counts = unreadableBlockCounts();

      const rollups = new MinuteRollups();
      for (let s = 0; s < 3; s++) rollups.record(host, makeSnapshot(gpus.map((gpu) => ({ ...gpu, utilizationGpuPct: 40 })), hourMs + 5 * MINUTE_MS + s * 1000));
      expect(await rollups.flush()).toEqual({ minutes: 120, hours: 120 });
      expect(rollups.pendingMinutes).toBe(0);

      const stored = await readMinutes(db(), hourMs, hourMs + HOUR_MS, gpus.map((gpu) => gpu.uuid));
      expect(stored).toHaveLength(120);
      expect(new Set(stored.map((row) => row.gpuUuid)).size).toBe(120);
      expect(stored.every((row) => row.samples === 3 && row.minute.getTime() === hourMs + 5 * MINUTE_MS)).toBe(true);
      // The unreadable minute 0 is lost with its block; the hour is made of what could be read.
      const hour = await db().gpuHour.findUniqueOrThrow({ where: { gpuUuid_hour: { gpuUuid: spoiled, hour: new Date(hourMs) } } });
      expect(hour.samples).toBe(1);
      const aside = await setAsideOf(spoiled);
      expect(aside).toHaveLength(1);
      expect(aside[0]!.hour.getTime()).toBe(hourMs);
      expect(Buffer.from(aside[0]!.data).equals(bad())).toBe(true);
      expect(aside[0]!.reason).toContain(spoiled);
      expect(unreadableBlockCounts().setAside).toBe(counts.setAside + 1);
    });

    it("while reports answer from the rest and say what they left out", async () => {
      const host = await ensureLocalHost(uniqueName("node"), false);
      const now = Date.UTC(2026, 11, 5, 12) + Object.keys(BAD_BLOCKS).indexOf(kind) * 10 * DAY_MS;
      const [good, spoiled] = [gpuUuid(), gpuUuid()];
      const rows = [good, spoiled].flatMap((uuid) => Array.from({ length: 120 }, (_, i) => makeReadMinute(uuid, now - 2 * HOUR_MS + i * MINUTE_MS, { hostId: host.id, utilAvg: 50 })));
      await upsertMinuteRows(db(), rows);
      await recomputeHours(db(), [now - 2 * HOUR_MS, now - HOUR_MS]);
      const spoiledHourMs = now - HOUR_MS;
      await spoil(spoiled, spoiledHourMs, bad());

      const report = await getUsageReport({ range: { choice: "24h", fromMs: now - DAY_MS, toMs: now }, groupBy: "host", nowMs: now, minuteRetentionMs: 30 * DAY_MS });
      expect(report.range.source).toBe("minute");
      // Three GPU-hours of minutes could be read, the fourth not.
      expect(report.totals.reportedGpuHours).toBeCloseTo(3, 9);
      expect(report.minutesLeftOut).toEqual([{ gpuUuid: spoiled, hourMs: spoiledHourMs, reason: expect.stringContaining(spoiled) }]);
      expect(unreadableBlockCounts().unreadable).toBeGreaterThanOrEqual(1);

      const history = await getGpuHistory({ uuid: good, range: { choice: "24h", fromMs: now - DAY_MS, toMs: now }, nowMs: now, minuteRetentionMs: 30 * DAY_MS });
      expect(history.points.filter((point) => point.utilAvg !== null).length).toBeGreaterThan(0);
      const spoiledHistory = await getGpuHistory({ uuid: spoiled, range: { choice: "24h", fromMs: now - DAY_MS, toMs: now }, nowMs: now, minuteRetentionMs: 30 * DAY_MS });
      expect(spoiledHistory.points.filter((point) => point.utilAvg !== null)).toHaveLength(12);
      await expect(bookingEfficiency(["no-such-booking"])).resolves.toBeInstanceOf(Map);
    });

    it("while retention prunes every other block past the cutoff and keeps this one aside", async () => {
      const host = await ensureLocalHost(uniqueName("node"), false);
      const now = Date.UTC(2026, 11, 20, 12) + Object.keys(BAD_BLOCKS).indexOf(kind) * 40 * DAY_MS;
      const gpus = [gpuUuid(), gpuUuid(), gpuUuid()];
      const oldHourMs = now - 32 * DAY_MS;
      // Oldest first: the spoiled block is the first retention meets, and older than the others.
      await upsertMinuteRows(db(), [
        ...gpus.map((uuid) => makeReadMinute(uuid, oldHourMs, { hostId: host.id })),
        ...gpus.map((uuid) => makeReadMinute(uuid, oldHourMs + HOUR_MS, { hostId: host.id })),
        ...gpus.map((uuid) => makeReadMinute(uuid, now - HOUR_MS, { hostId: host.id })),
      ]);
      await spoil(gpus[0]!, oldHourMs, bad());

      const pruned = await pruneHistory(new Date(now), { minuteDays: 30, hourDays: 365 });
      // The five readable blocks past the cutoff are deleted; the spoiled one is moved aside.
      expect(pruned.minuteBlocks).toBeGreaterThanOrEqual(5);
      expect(await db().gpuMinuteBlock.count({ where: { gpuUuid: { in: gpus }, hour: { lt: new Date(now - 30 * DAY_MS) } } })).toBe(0);
      expect(await readMinutes(db(), 0, EVER, gpus)).toHaveLength(3);
      expect((await setAsideOf(gpus[0]!)).map((block) => block.hour.getTime())).toEqual([oldHourMs]);
      // The others' hours were rolled up before their minutes went; the spoiled one had none to roll up.
      expect(await db().gpuHour.count({ where: { gpuUuid: { in: gpus }, hour: { lt: new Date(now - 30 * DAY_MS) } } })).toBe(5);
      // A second pass has nothing left to trip on.
      expect(await pruneHistory(new Date(now), { minuteDays: 30, hourDays: 365 })).toEqual({ minuteBlocks: 0, hours: 0, hoursRolledUp: 0 });
    });

    it("while the one-time conversion of old minute rows merges around it", async () => {
      const host = await ensureLocalHost(uniqueName("node"), false);
      const hourMs = Date.UTC(2026, 8, 1, 10) + Object.keys(BAD_BLOCKS).indexOf(kind) * DAY_MS;
      const [good, spoiled] = [gpuUuid(), gpuUuid()];
      await upsertMinuteRows(db(), [makeReadMinute(spoiled, hourMs, { hostId: host.id })]);
      await spoil(spoiled, hourMs, bad());
      const legacy = [good, spoiled].flatMap((uuid) => [1, 2].map((m) => makeReadMinute(uuid, hourMs + m * MINUTE_MS, { hostId: host.id })));
      await db().legacyGpuMinute.createMany({ data: legacy.map((row) => ({ ...row, runnerUserId: row.runnerUserId ?? null })) });

      expect(await convertLegacyMinutes()).toBe(4);
      expect(await db().legacyGpuMinute.count()).toBe(0);
      expect((await readMinutes(db(), hourMs, hourMs + HOUR_MS, [good, spoiled])).map((row) => [row.gpuUuid, row.minute.getTime() - hourMs]).sort()).toEqual(
        [good, spoiled].flatMap((uuid) => [[uuid, MINUTE_MS], [uuid, 2 * MINUTE_MS]]).sort(),
      );
      expect(await setAsideOf(spoiled)).toHaveLength(1);
    });
  });
}
