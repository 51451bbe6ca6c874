import { describe, expect, it } from "vitest";
import type { LiveBooking } from "@/lib/live/live";
import type { GpuSample, Snapshot } from "@/lib/domain/snapshot";
import { DEFAULT_ALERT_CONFIG, type AlertConfig } from "@/server/alerts/alert-config";
import type { AlertMonitor } from "@/server/alerts/alert-monitor";
import { alertRulesConsumer } from "@/server/alerts/alert-rules-consumer";
import { assessIdle, type MinuteReading } from "@/server/bookings/rules/idle-rule";
import { memoryPersistence } from "@/server/alerts/testing";
import { staticDirectory } from "@/server/attribution/user-directory";
import { simulatedFleet, simulatedSnapshotAt } from "@/host/collector/simulated/simulated-source";
import { SIMULATED_USERS } from "@/host/collector/simulated/models";
import { FleetState } from "@/server/fleet/fleet-state";
import { makeGpu, makeProcess, makeSnapshot } from "@/server/testing/factories";
import { Tick } from "@/server/tick/tick";

/**
 * The rules and the engine over recorded sequences of readings, with a
 * clock the test owns: the simulated fleet's own squatter and idle-held GPU
 * over hours, and hand-made noisy signals.
 */

const people = SIMULATED_USERS.map((user) => ({ id: `u-${user.login}`, username: user.login, name: user.login, unixLogin: user.login }));
const directory = staticDirectory(people);
/** The policy's default idle threshold (idleBelowPct), which the idle-booking alert shares with idle release. */
const IDLE_BELOW_PCT = 5;
const personOf = (login: string) => {
  const { unixLogin: _login, ...person } = people.find((candidate) => candidate.unixLogin === login)!;
  return person;
};

/**
 * A fleet of one host fed through the real pipeline: FleetState, then the
 * server's tick (offline check, reconciliation) with the alert rules as its
 * consumer, one reading per `feed`; alerts kept in memory. The idle-booking
 * alert's clock is idle release's rule over minute rollups, kept here in
 * memory as the database would hold them (each GPU's highest utilization per minute).
 */
async function harness(config: AlertConfig, bookings: LiveBooking[] = [], options: { persistence?: ReturnType<typeof memoryPersistence>; startAt?: number } = {}) {
  let clock = options.startAt ?? 0;
  const fleet = new FleetState({ offlineAfterMs: 15_000, simulated: true, now: () => clock });
  const persistence = options.persistence ?? memoryPersistence();
  const minutes = new Map<string, MinuteReading>();
  const idleStandings = () =>
    new Map(
      bookings.map((entry) => {
        const assessment = assessIdle({ gpuUuids: entry.gpus.map((gpu) => gpu.uuid), clockFromMs: Date.parse(entry.startsAt), readings: [...minutes.values()], belowPct: IDLE_BELOW_PCT, nowMs: clock });
        return [entry.reservationId, { idleMinutes: assessment.idleMinutes, belowPct: IDLE_BELOW_PCT }];
      }),
    );
  // What idle release's last pass found, judged here at every tick.
  const alerts = alertRulesConsumer({ config, persistence, readInventory: false, idleStandings });
  const tick = new Tick({ fleet, bookings: { current: () => bookings }, directory, consumers: [alerts], now: () => clock });
  fleet.connectHost("h1", "node-a", true);
  // Leads from the start, as a single server does: the rules' term begins from what is stored.
  await tick.leaderJob.start();
  return {
    persistence,
    get monitor(): AlertMonitor {
      return alerts.monitor!;
    },
    feed(snapshot: Snapshot | null, at: number) {
      clock = at;
      if (snapshot) {
        fleet.ingest("h1", snapshot);
        const minuteMs = Math.floor(at / 60_000) * 60_000;
        for (const gpu of snapshot.gpus) {
          const key = `${gpu.uuid} ${minuteMs}`;
          const utilMax = Math.max(minutes.get(key)?.utilMax ?? 0, gpu.utilizationGpuPct ?? 0);
          minutes.set(key, { gpuUuid: gpu.uuid, minuteMs, utilMax });
        }
      }
      tick.runTick(at);
    },
  };
}

function booking(bookingId: string, bookedBy: string, gpus: { uuid: string; index: number }[], startsAt: number, endsAt: number): LiveBooking {
  return {
    reservationId: bookingId,
    hostId: "h1",
    hostName: "node-a",
    gpus,
    bookedBy: personOf(bookedBy),
    startsAt: new Date(startsAt).toISOString(),
    endsAt: new Date(endsAt).toISOString(),
    purpose: "recorded sequence",
  };
}

describe("the simulated fleet's squatter and idle-held GPU, replayed", () => {
  const SEED = 42;
  const spec = simulatedFleet({ seed: SEED })[0];
  const gpu0 = spec.gpus[0];
  const gpu2 = spec.gpus[2];
  const gpu7 = spec.gpus[7];
  const STEP = 10_000;
  const MINUTE = 60_000;

  const reading = (t: number) => ({ ...simulatedSnapshotAt(spec, SEED, t), host: { name: "node-a", driverVersion: "580", cudaVersion: "13.0" } });
  const jobOf = (snapshot: Snapshot) => snapshot.processes.find((process) => process.gpuUuid === gpu0.uuid) ?? null;
  const squatted = (snapshot: Snapshot) => {
    const job = jobOf(snapshot);
    return snapshot.processes.some((process) => process.gpuUuid === gpu2.uuid && process.user !== job?.user);
  };

  /** The first moment after `from` at which a squatter joins a job that runs on. */
  function findSquatterStart(from: number): number {
    for (let t = from; t < from + 7 * 86_400_000; t += MINUTE) {
      if (squatted(reading(t)) && !squatted(reading(t - MINUTE))) {
        for (let s = t - MINUTE; s <= t; s += 1000) if (squatted(reading(s))) return s;
      }
    }
    throw new Error("no squatter in a week of the simulated fleet");
  }

  it("opens a conflict within its hold time of the squatter's arrival and closes it after it left; the idle booking opens after its hold time", async () => {
    const config: AlertConfig = { ...DEFAULT_ALERT_CONFIG, holdMs: { ...DEFAULT_ALERT_CONFIG.holdMs, conflict: MINUTE, idle_booking: 30 * MINUTE } };
    const arrival = findSquatterStart(Date.UTC(2026, 10, 30, 6));
    const job = jobOf(reading(arrival))!;
    const jobStart = Date.parse(job.startedAt!);
    const start = arrival - 40 * MINUTE;
    const end = arrival + 150 * MINUTE;

    // The job's owner booked GPU 2 when the job started; whoever holds GPU 7 booked it for the whole span.
    const idleBooker = reading(start).processes.find((process) => process.gpuUuid === gpu7.uuid)?.user ?? "alice";
    const bookings = [
      booking("res-job", job.user!, [{ uuid: gpu2.uuid, index: 2 }], Math.max(start, jobStart), end + MINUTE),
      booking("res-idle", idleBooker, [{ uuid: gpu7.uuid, index: 7 }], start, end + MINUTE),
    ];
    const run = await harness(config, bookings);

    // The recorded truth: when a squatter was on GPU 2 while the booking held.
    const present: { at: number; squatter: boolean }[] = [];
    for (let t = start; t <= end; t += STEP) {
      const snapshot = reading(t);
      run.feed(snapshot, t);
      present.push({ at: t, squatter: t >= Math.max(start, jobStart) && squatted(snapshot) });
    }
    await run.monitor.idle();

    const segments: { from: number; to: number }[] = [];
    for (const sample of present) {
      const last = segments.at(-1);
      if (sample.squatter && last && sample.at - last.to <= STEP) last.to = sample.at;
      else if (sample.squatter) segments.push({ from: sample.at, to: sample.at });
    }
    expect(segments.length).toBeGreaterThan(0);

    const conflicts = run.persistence.changes.filter((change) => change.key === `conflict:${gpu2.uuid}:res-job`);
    const opens = conflicts.filter((change) => change.event === "opened");
    const closes = conflicts.filter((change) => change.event === "closed");
    const lasting = segments.filter((segment) => segment.to - segment.from >= config.holdMs.conflict);
    expect(opens).toHaveLength(lasting.length);
    expect(opens[0].at - lasting[0].from).toBeGreaterThanOrEqual(config.holdMs.conflict);
    expect(opens[0].at - lasting[0].from).toBeLessThanOrEqual(config.holdMs.conflict + STEP);
    // Closed the clear time after the squatter's last reading (and the next one, which no longer has it).
    if (lasting[0].to + STEP + config.clearMs <= end) {
      expect(closes[0].at - (lasting[0].to + STEP)).toBeGreaterThanOrEqual(config.clearMs);
      expect(closes[0].at - (lasting[0].to + STEP)).toBeLessThanOrEqual(config.clearMs + STEP);
    }
    const evidence = JSON.parse(opens[0].row.evidence) as { processes: { login: string; intruder: boolean }[] };
    expect(evidence.processes.filter((process) => process.intruder).map((process) => process.login)).not.toContain(job.user);
    expect(evidence.processes.some((process) => process.intruder)).toBe(true);
    expect(JSON.parse(opens[0].row.userIds)[0]).toBe(`u-${job.user}`);

    const idle = run.persistence.changes.filter((change) => change.key === `idle_booking:${gpu7.uuid}:res-idle`);
    expect(idle.map((change) => change.event)).toEqual(["opened"]);
    // 30 whole idle minutes from the booking's start: the first counts from the next whole minute.
    expect(idle[0].at - start).toBeGreaterThanOrEqual(30 * MINUTE);
    expect(idle[0].at - start).toBeLessThanOrEqual(31 * MINUTE + STEP);
  });
});

describe("hand-made sequences", () => {
  const config: AlertConfig = DEFAULT_ALERT_CONFIG;

  function single(overrides: Partial<GpuSample>, processes = 1) {
    const gpu = makeGpu({ uuid: "GPU-hand", index: 0, memoryTotalMiB: 81_920, ...overrides });
    return makeSnapshot([gpu], 0, { processes: Array.from({ length: processes }, (_, i) => makeProcess(gpu, { pid: 100 + i, user: "alice" })) });
  }

  it("memory near the limit: opens after a minute above 95 %, does not flap while it hovers, closes once well below", async () => {
    const run = await harness(config, [booking("res-m", "alice", [{ uuid: "GPU-hand", index: 0 }], 0, 10 * 3_600_000)]);
    // A recorded-like trace: 10 minutes wandering between 93 % and 98 % of 80 GiB, then the job ends.
    let state = 11;
    const noise = () => {
      state = (state * 48_271) % 2_147_483_647;
      return state / 2_147_483_647;
    };
    let t = 0;
    for (; t < 600_000; t += 1000) {
      const pct = 93 + 5 * noise();
      const snapshot = single({ memoryUsedMiB: (81_920 * pct) / 100 });
      run.feed({ ...snapshot, sampledAt: new Date(t).toISOString() }, t);
    }
    const endOfJob = t;
    for (; t < endOfJob + 120_000; t += 1000) run.feed({ ...single({ memoryUsedMiB: 2048 }, 0), sampledAt: new Date(t).toISOString() }, t);
    await run.monitor.idle();

    const memory = run.persistence.changes.filter((change) => change.kind === "memory_pressure");
    expect(memory.map((change) => change.event)).toEqual(["opened", "closed"]);
    expect(memory[0].at).toBeLessThan(120_000);
    expect(memory[1].at - endOfJob).toBeGreaterThanOrEqual(config.clearMs);
    expect(memory[1].at - endOfJob).toBeLessThanOrEqual(config.clearMs + 1000);
  });

  it("an idle booking opens after 30 idle minutes, a burst of use starts its clock again, and it closes once the GPU is really used", async () => {
    const run = await harness(config, [booking("res-i", "alice", [{ uuid: "GPU-hand", index: 0 }], 0, 10 * 3_600_000)]);
    const step = 5000;
    const burstAt = 10 * 60_000;
    let t = 0;
    for (; t < 50 * 60_000; t += step) {
      // A notebook at rest: 0-3 %, with one 5 s burst of use at minute 10 (a booking used at all is not idle).
      const util = t === burstAt ? 40 : (t / step) % 4;
      run.feed({ ...single({ utilizationGpuPct: util }), sampledAt: new Date(t).toISOString() }, t);
    }
    const busyFrom = t;
    for (; t < busyFrom + 10 * 60_000; t += step) run.feed({ ...single({ utilizationGpuPct: 85 }), sampledAt: new Date(t).toISOString() }, t);
    await run.monitor.idle();

    const idle = run.persistence.changes.filter((change) => change.kind === "idle_booking");
    expect(idle.map((change) => change.event)).toEqual(["opened", "closed"]);
    // Counted from the minute after the burst's: 30 idle minutes from 00:11.
    expect(idle[0].at).toBeGreaterThanOrEqual(burstAt + 31 * 60_000);
    expect(idle[0].at).toBeLessThanOrEqual(burstAt + 31 * 60_000 + step);
    expect(idle[1].at - busyFrom).toBeGreaterThanOrEqual(config.clearMs);
    expect(idle[1].at - busyFrom).toBeLessThanOrEqual(config.clearMs + step);
  });

  it("a host that goes silent: host offline after its limit, and its GPU's alerts are not closed meanwhile", async () => {
    const quick: AlertConfig = { ...config, holdMs: { ...config.holdMs, unbooked_use: 10_000, host_offline: 60_000 } };
    const run = await harness(quick);
    let t = 0;
    for (; t < 30_000; t += 1000) run.feed({ ...single({}), sampledAt: new Date(t).toISOString() }, t);
    const silentFrom = t;
    for (; t < silentFrom + 120_000; t += 1000) run.feed(null, t);
    await run.monitor.idle();

    const events = run.persistence.changes.map((change) => `${change.event} ${change.kind}`);
    expect(events).toEqual(["opened unbooked_use", "opened host_offline"]);
    const offline = run.persistence.changes[1];
    // Offline after 15 s of silence (the fleet's limit), then the alert's own minute.
    expect(offline.at - silentFrom).toBeGreaterThanOrEqual(15_000 + 60_000);
    expect(offline.at - silentFrom).toBeLessThanOrEqual(15_000 + 60_000 + 2000);
  });

  it("a GPU that disappears from its host's inventory", async () => {
    const quick: AlertConfig = { ...config, holdMs: { ...config.holdMs, gpu_lost: 5000 } };
    const run = await harness(quick);
    const a = makeGpu({ uuid: "GPU-a", index: 0 });
    const b = makeGpu({ uuid: "GPU-b", index: 1 });
    let t = 0;
    for (; t < 10_000; t += 1000) run.feed(makeSnapshot([a, b], t), t);
    for (; t < 30_000; t += 1000) run.feed(makeSnapshot([a], t), t);
    for (; t < 100_000; t += 1000) run.feed(makeSnapshot([a, b], t), t);
    await run.monitor.idle();
    const lost = run.persistence.changes.filter((change) => change.kind === "gpu_lost");
    expect(lost.map((change) => [change.event, change.at])).toEqual([
      ["opened", 15_000],
      ["closed", 30_000 + config.clearMs],
    ]);
    expect(lost[0].row.gpuIndex).toBe(1);
  });

  it("carries an alert that was open before a restart on, without opening it twice", async () => {
    const persistence = memoryPersistence();
    const bookings = [booking("res-r", "alice", [{ uuid: "GPU-hand", index: 0 }], 0, 10 * 3_600_000)];
    const reading = (t: number) => ({ ...single({ eccErrorsUncorrected: 2 }), sampledAt: new Date(t).toISOString() });
    const first = await harness(config, bookings, { persistence });
    for (let t = 0; t <= 20_000; t += 1000) first.feed(reading(t), t);
    await first.monitor.idle();
    expect(persistence.changes.map((change) => `${change.event} ${change.kind}`)).toEqual(["opened gpu_health"]);

    const second = await harness(config, bookings, { persistence, startAt: 30_000 });
    for (let t = 30_000; t <= 60_000; t += 1000) second.feed(reading(t), t);
    await second.monitor.idle();
    expect(persistence.changes).toHaveLength(1);
    expect([...second.monitor.openAlerts().keys()]).toEqual(["gpu_health:GPU-hand"]);
  });
});
