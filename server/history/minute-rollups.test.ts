import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { GpuSample } from "@/lib/domain/snapshot";
import { db } from "@/server/core/db";
import { HOUR_MS, MINUTE_MS } from "@/server/minutes/minute-row";
import { recomputeHours } from "@/server/history/rollup-store";
import { readMinutes } from "@/server/minutes/minute-store";
import { MinuteRollups } from "@/server/history/minute-rollups";
import { getGpuHistory } from "@/server/history/gpu-history";
import { getUsageReport } from "@/server/history/usage-report";
import { ensureLocalHost, recordHostInventory } from "@/server/hosts/host-registry";
import { makeGpu, makeProcess, makeSnapshot, uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";
import type { LiveBooking } from "@/lib/live/live";
import { staticDirectory } from "@/server/attribution/user-directory";
import { AcceptedReadings } from "@/server/fleet/accepted-readings";
import { FleetState } from "@/server/fleet/fleet-state";
import { rollupsConsumer } from "@/server/history/rollups-consumer";
import { startHistory } from "@/server/history/history-service";
import { onMinutesStored } from "@/server/history/minutes-stored";
import { manualTimers } from "@/server/testing/manual-timers";
import type { TickView } from "@/server/tick/tick-view";
import { Tick } from "@/server/tick/tick";

beforeAll(async () => {
  await useTestDatabase();
}, 60_000);

/** A registered host with one GPU, as the ingest path would have it. */
async function setupGpu(): Promise<{ host: { id: string; simulated: boolean }; gpu: GpuSample }> {
  const host = await ensureLocalHost(uniqueName("node"), false);
  const gpu = makeGpu();
  await recordHostInventory(host.id, { name: host.name, driverVersion: "580.1", cudaVersion: "13.0" }, [gpu], new Date());
  return { host, gpu };
}

async function storedMinutes(uuid: string) {
  return readMinutes(db(), 0, Date.UTC(2100, 0, 1), [uuid]);
}

// A fixed hour in the past, away from any time-zone or DST question: times are UTC throughout.
const T0 = Date.UTC(2026, 10, 30, 10, 0, 0);

describe("minute rollups written in batches", () => {
  it("merges a minute flushed in two parts into one row with the average of all its samples", async () => {
    const { host, gpu } = await setupGpu();
    const rollups = new MinuteRollups();
    for (let s = 0; s < 30; s++) {
      rollups.record(host, makeSnapshot([{ ...gpu, utilizationGpuPct: 20, memoryUsedMiB: 1000 }], T0 + s * 1000));
    }
    await rollups.flush();
    const half = await storedMinutes(gpu.uuid);
    expect(half).toHaveLength(1);
    expect(half[0]!.samples).toBe(30);

    for (let s = 30; s < 40; s++) {
      rollups.record(host, makeSnapshot([{ ...gpu, utilizationGpuPct: 80, memoryUsedMiB: 4000 }], T0 + s * 1000));
    }
    await rollups.flush();
    const [minute] = await storedMinutes(gpu.uuid);
    expect(minute!.samples).toBe(40);
    // (30 × 20 + 10 × 80) / 40
    expect(minute!.utilAvg).toBeCloseTo(35, 10);
    expect(minute!.utilMax).toBe(80);
    expect(minute!.memUsedAvg).toBeCloseTo(1750, 10);
    expect(minute!.memUsedMax).toBe(4000);
    expect(rollups.pendingMinutes).toBe(0);

    const hour = await db().gpuHour.findUnique({ where: { gpuUuid_hour: { gpuUuid: gpu.uuid, hour: new Date(T0) } } });
    expect(hour?.samples).toBe(1);
    expect(hour?.utilAvg).toBeCloseTo(35, 10);
  });

  it("writes a fleet of more GPUs than SQLite takes bound parameters in one statement", async () => {
    const host = await ensureLocalHost(uniqueName("big"), true);
    const gpus = Array.from({ length: 1200 }, () => makeGpu());
    const rollups = new MinuteRollups();
    rollups.record(host, makeSnapshot(gpus, T0 + 3 * HOUR_MS));
    await expect(rollups.flush()).resolves.toMatchObject({ minutes: 1200, hours: 1200 });
    expect(rollups.snapshotStats().failedFlushes).toBe(0);
  });

  it("writes a large flush in parts, lets the event loop run between them, and after a failed part writes each minute once", async () => {
    const host = await ensureLocalHost(uniqueName("parts"), true);
    const gpus = Array.from({ length: 250 }, () => makeGpu());
    const rollups = new MinuteRollups();
    rollups.record(host, makeSnapshot(gpus, T0 + 4 * HOUR_MS));
    const client = db();
    const transaction = client.$transaction.bind(client) as (...args: unknown[]) => Promise<unknown>;
    let calls = 0;
    let turns = 0;
    const spin = () => {
      turns += 1;
      if (calls < 3) setImmediate(spin);
    };
    const spy = vi.spyOn(client, "$transaction").mockImplementation(((...args: unknown[]) => {
      calls += 1;
      if (calls === 1) setImmediate(spin);
      return calls === 2 ? Promise.reject(new Error("database is locked")) : transaction(...args);
    }) as never);
    try {
      await expect(rollups.flush()).rejects.toThrow("database is locked");
      expect(calls).toBe(2);
      expect(turns).toBeGreaterThan(0);
      // The first part (100 GPUs) is written; the other 150 wait for the next flush.
      expect(rollups.pendingMinutes).toBe(150);
      await expect(rollups.flush()).resolves.toMatchObject({ minutes: 150, hours: 150 });
      expect(calls).toBe(4);
    } finally {
      spy.mockRestore();
    }
    const rows = await readMinutes(db(), 0, Date.UTC(2100, 0, 1), gpus.map((gpu) => gpu.uuid));
    expect(rows).toHaveLength(250);
    expect(rows.every((row) => row.samples === 1)).toBe(true);
  });

  it("writes nothing for minutes without readings: an offline agent leaves a gap, not zeros", async () => {
    const { host, gpu } = await setupGpu();
    const rollups = new MinuteRollups();
    const reading = (minute: number) => makeSnapshot([{ ...gpu, utilizationGpuPct: 60 }], T0 + minute * MINUTE_MS + 5_000);
    for (const minute of [0, 1, 2, 3, 4, 10, 11]) rollups.record(host, reading(minute));
    await rollups.flush();

    const minutes = await storedMinutes(gpu.uuid);
    expect(minutes.map((m) => (m.minute.getTime() - T0) / MINUTE_MS)).toEqual([0, 1, 2, 3, 4, 10, 11]);
    expect(minutes.every((m) => m.utilAvg === 60)).toBe(true);
    const hour = await db().gpuHour.findUnique({ where: { gpuUuid_hour: { gpuUuid: gpu.uuid, hour: new Date(T0) } } });
    expect(hour?.samples).toBe(7);
    expect(hour?.utilAvg).toBe(60);

    // Charts see the gap as nulls.
    const history = await getGpuHistory({
      uuid: gpu.uuid,
      range: { choice: "custom", fromMs: T0, toMs: T0 + 15 * MINUTE_MS },
      nowMs: T0 + 15 * MINUTE_MS,
      minuteRetentionMs: 30 * 24 * HOUR_MS,
    });
    expect(history.points.map((p) => p.utilAvg)).toEqual([60, 60, 60, 60, 60, null, null, null, null, null, 60, 60, null, null, null]);
  });

  it("takes replayed older readings after newer ones and merges them into the right minutes and hours", async () => {
    const { host, gpu } = await setupGpu();
    const rollups = new MinuteRollups();
    rollups.record(host, makeSnapshot([{ ...gpu, utilizationGpuPct: 100 }], T0 + HOUR_MS + 1000));
    await rollups.flush();
    // The agent reconnects and replays what it buffered an hour earlier.
    rollups.record(host, makeSnapshot([{ ...gpu, utilizationGpuPct: 10 }], T0 + 1000));
    rollups.record(host, makeSnapshot([{ ...gpu, utilizationGpuPct: 50 }], T0 + HOUR_MS + 2000));
    await rollups.flush();
    const minutes = await storedMinutes(gpu.uuid);
    expect(minutes.map((m) => [m.minute.getTime() - T0, m.samples, m.utilAvg])).toEqual([
      [0, 1, 10],
      [HOUR_MS, 2, 75],
    ]);
    const hours = await db().gpuHour.findMany({ where: { gpuUuid: gpu.uuid }, orderBy: { hour: "asc" } });
    expect(hours.map((h) => [h.hour.getTime() - T0, h.utilAvg])).toEqual([
      [0, 10],
      [HOUR_MS, 75],
    ]);
  });

  it("takes the readings, who booked and who ran from the tick's view: a squatter's minutes name the squatter, unbooked use the person running it", async () => {
    const { host, gpu } = await setupGpu();
    const [bob, alice, carol] = ["bob", "alice", "carol"].map((login) => ({ id: randomUUID(), username: uniqueName(login), name: login, unixLogin: login }));
    const rollups = new MinuteRollups();
    let clock = T0;
    const fleet = new FleetState({ offlineAfterMs: 15_000, simulated: false, now: () => clock });
    fleet.connectHost(host.id, "node-rollups", false);
    // Bob's booking, as the booking feed has it, over minute 0 only; none is on record in the database.
    const bookings: LiveBooking[] = [
      {
        reservationId: "r-bob",
        hostId: host.id,
        hostName: "node-rollups",
        gpus: [{ uuid: gpu.uuid, index: gpu.index }],
        bookedBy: { id: bob.id, username: bob.username, name: bob.name },
        startsAt: new Date(T0).toISOString(),
        endsAt: new Date(T0 + MINUTE_MS).toISOString(),
        purpose: "test",
      },
    ];
    const readings = new AcceptedReadings();
    const tick = new Tick({ fleet, readings, bookings: { current: () => bookings }, directory: staticDirectory([bob, alice, carol]), consumers: [rollupsConsumer(rollups)], now: () => clock });
    const runs = (minute: number) => (minute === 0 ? [makeProcess(gpu, { user: "alice" })] : minute === 1 ? [makeProcess(gpu, { user: "carol" })] : []);
    for (let minute = 0; minute < 3; minute++) {
      for (let second = 10; second < 50; second += 10) {
        clock = T0 + minute * MINUTE_MS + second * 1000;
        const snapshot = makeSnapshot([gpu], clock, { processes: runs(minute) });
        // What ingest does with an accepted reading, then the tick that follows it and brings it to the rollups.
        fleet.ingest(host.id, snapshot);
        readings.add(host, snapshot);
        tick.runTick(clock + 500);
      }
    }
    await rollups.flush();
    const minutes = await storedMinutes(gpu.uuid);
    expect(minutes.map((m) => [m.bookedByUserId, m.runnerUserId])).toEqual([
      [bob.id, alice.id],
      [null, carol.id],
      [null, null],
    ]);
    // Each reading counted once: four a minute.
    expect(minutes.map((m) => m.samples)).toEqual([4, 4, 4]);
    const hour = await db().gpuHour.findUnique({ where: { gpuUuid_hour: { gpuUuid: gpu.uuid, hour: new Date(T0) } } });
    // Of three minutes: nobody booked two, and each person ran one (a tie goes to a person, the first).
    expect([hour?.bookedByUserId, hour?.runnerUserId]).toEqual([null, alice.id]);
  });

  it("records who had the GPU booked in each minute no tick saw (replayed readings) from the bookings on record, and whether a process ran", async () => {
    const { host, gpu } = await setupGpu();
    const user = await db().user.create({
      data: { id: randomUUID(), name: "Rollup Booker", email: `${uniqueName("bookedBy")}@example.test`, username: uniqueName("bookedBy") },
    });
    const gpuRow = await db().gpu.findUniqueOrThrow({ where: { uuid: gpu.uuid }, select: { id: true } });
    // Booked from minute 2 to minute 4 (end exclusive), plus a cancelled booking that holds nothing.
    const startsAt = new Date(T0 + 2 * MINUTE_MS);
    const endsAt = new Date(T0 + 4 * MINUTE_MS);
    await db().reservation.create({
      data: { userId: user.id, hostId: host.id, startsAt, endsAt, purpose: "test", gpus: { create: [{ gpuId: gpuRow.id, startsAt, endsAt }] } },
    });
    await db().reservation.create({
      data: {
        userId: user.id,
        hostId: host.id,
        startsAt: new Date(T0 + 5 * MINUTE_MS),
        endsAt: new Date(T0 + 5 * MINUTE_MS),
        purpose: "withdrawn",
        status: "cancelled",
        gpus: { create: [{ gpuId: gpuRow.id, startsAt: new Date(T0 + 5 * MINUTE_MS), endsAt: new Date(T0 + 5 * MINUTE_MS) }] },
      },
    });
    const rollups = new MinuteRollups();
    for (let minute = 0; minute < 6; minute++) {
      const snapshot = makeSnapshot([gpu], T0 + minute * MINUTE_MS + 30_000);
      if (minute === 3) snapshot.processes = [makeProcess(gpu)];
      rollups.record(host, snapshot);
    }
    await rollups.flush();
    const minutes = await storedMinutes(gpu.uuid);
    expect(minutes.map((m) => m.bookedByUserId)).toEqual([null, null, user.id, user.id, null, null]);
    expect(minutes.map((m) => m.busy)).toEqual([false, false, false, true, false, false]);

    const report = await getUsageReport({
      range: { choice: "custom", fromMs: T0, toMs: T0 + 10 * MINUTE_MS },
      groupBy: "host",
      userId: user.id,
      nowMs: T0 + 10 * MINUTE_MS,
      minuteRetentionMs: 30 * 24 * HOUR_MS,
    });
    expect(report.scope).toBe("self");
    expect(report.people).toHaveLength(1);
    expect(report.people[0]!.bookedGpuHours).toBeCloseTo(2 / 60, 10);
    expect(report.people[0]!.efficiencyPct).toBeCloseTo(50, 10);
  });

  it("brings hours up to date flush by flush to exactly what the full recompute from their minutes writes", async () => {
    const { host, gpu } = await setupGpu();
    const user = await db().user.create({
      data: { id: randomUUID(), name: "Mid-hour Booker", email: `${uniqueName("mid")}@example.test`, username: uniqueName("mid") },
    });
    const gpuRow = await db().gpu.findUniqueOrThrow({ where: { uuid: gpu.uuid }, select: { id: true } });
    // Booked from 10:57:30 into the next hour: the booker of hour 10 changes as its minutes arrive.
    const startsAt = new Date(T0 + 57 * MINUTE_MS + 30_000);
    const endsAt = new Date(T0 + HOUR_MS + 30 * MINUTE_MS);
    await db().reservation.create({
      data: { userId: user.id, hostId: host.id, startsAt, endsAt, purpose: "mid-hour", gpus: { create: [{ gpuId: gpuRow.id, startsAt, endsAt }] } },
    });
    const reading = (second: number) => {
      const snapshot = makeSnapshot(
        [{ ...gpu, utilizationGpuPct: (second * 7.3) % 100, memoryUsedMiB: 1000 + ((second * 13) % 977), powerDrawW: 100.1 + (second % 17), temperatureC: 40 + (second % 9) }],
        T0 + second * 1000,
      );
      if (second % 120 < 40) snapshot.processes = [makeProcess(gpu)];
      return snapshot;
    };
    const recordSeconds = (rollups: MinuteRollups, from: number, to: number) => {
      for (let second = from; second < to; second++) rollups.record(host, reading(second));
    };
    const storedHours = () => db().gpuHour.findMany({ where: { gpuUuid: gpu.uuid }, orderBy: { hour: "asc" } });
    // What the flush wrote, against what the full recompute from all stored minutes writes over it.
    const expectHoursToMatchMinutes = async () => {
      const written = await storedHours();
      await recomputeHours(db(), written.map((hour) => hour.hour.getTime()), [gpu.uuid]);
      expect(written).toEqual(await storedHours());
    };

    const here = new MinuteRollups();
    const other = new MinuteRollups();
    // 10:55:00–10:56:20: the first write of hour 10 since start is a recount.
    recordSeconds(here, 55 * 60, 56 * 60 + 20);
    await here.flush();
    await expectHoursToMatchMinutes();
    expect(here.snapshotStats().recountedHours).toBe(1);
    // The rest of 10:56 (a minute written in two flushes) up to 10:59:40, then into hour 11: both from tallies.
    recordSeconds(here, 56 * 60 + 20, 59 * 60 + 40);
    await here.flush();
    await expectHoursToMatchMinutes();
    recordSeconds(here, 59 * 60 + 40, 60 * 60 + 30);
    await here.flush();
    await expectHoursToMatchMinutes();
    expect(here.snapshotStats().recountedHours).toBe(2);
    // An agent that moved to another instance for a few seconds: that instance writes part of 11:00,
    // so this one's tally of hour 11 no longer vouches for it and the hour is recounted.
    recordSeconds(other, 60 * 60 + 30, 60 * 60 + 35);
    await other.flush();
    recordSeconds(here, 60 * 60 + 35, 61 * 60 + 10);
    await here.flush();
    await expectHoursToMatchMinutes();
    expect(here.snapshotStats().recountedHours).toBe(3);
    // Readings replayed late: one of 10:58 after 10:59 was written, one of 11:00 after 11:01 was.
    here.record(host, reading(58 * 60 + 59));
    here.record(host, reading(60 * 60 + 59));
    recordSeconds(here, 61 * 60 + 10, 62 * 60 + 5);
    await here.flush();
    await expectHoursToMatchMinutes();
    expect(here.snapshotStats().recountedHours).toBe(5);
    // Back in step: the next flush extends both tallies again.
    recordSeconds(here, 62 * 60 + 5, 63 * 60);
    await here.flush();
    await expectHoursToMatchMinutes();
    expect(here.snapshotStats().recountedHours).toBe(5);

    const [hour10, hour11] = await db().gpuHour.findMany({ where: { gpuUuid: gpu.uuid }, orderBy: { hour: "asc" } });
    // Minutes 55 and 56 nobody held, 57 (half booked) to 59 the booker: three of five.
    expect(hour10!.bookedByUserId).toBe(user.id);
    expect(hour10!.samples).toBe(5);
    expect(hour11!.samples).toBe(3);
  });
});

describe("the history service", () => {
  it("records the readings the tick's view brings, announces stored minutes after a flush that wrote some, and records the readings after the last tick at close", async () => {
    const { host, gpu } = await setupGpu();
    const history = startHistory({ flushEveryMs: 60_000, minuteDays: 30, hourDays: 365, now: () => T0 + 5 * MINUTE_MS, timers: manualTimers() });
    const heard = vi.fn();
    const stopHearing = onMinutesStored(heard);
    const view = (readings: TickView["readings"]) => ({ nowMs: T0 + 5 * MINUTE_MS, readings, gpuStates: {} }) as unknown as TickView;
    try {
      await history.flush();
      expect(heard).not.toHaveBeenCalled();
      history.tickConsumer.consume!(view([{ host, snapshot: makeSnapshot([gpu], T0 + 1000) }]));
      await history.flush();
      expect(heard).toHaveBeenCalledTimes(1);
    } finally {
      stopHearing();
      await history.close([{ host, snapshot: makeSnapshot([gpu], T0 + MINUTE_MS + 1000) }]);
    }
    expect((await storedMinutes(gpu.uuid)).map((m) => [m.minute.getTime() - T0, m.samples])).toEqual([
      [0, 1],
      [MINUTE_MS, 1],
    ]);
  });
});
