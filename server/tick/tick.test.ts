import { afterEach, describe, expect, it, vi } from "vitest";
import type { LiveBooking } from "@/lib/live/live";
import { staticDirectory } from "@/server/attribution/user-directory";
import { AcceptedReadings } from "@/server/fleet/accepted-readings";
import { FleetState } from "@/server/fleet/fleet-state";
import { makeGpu, makeProcess, makeSnapshot } from "@/server/testing/factories";
import { log } from "@/server/core/log";
import { delayToPhase, Tick } from "@/server/tick/tick";
import type { TickConsumer, TickView } from "@/server/tick/tick-view";

/** The tick with real readings and reconciliation: one view per tick, to each consumer in order, the leader's only while it leads. */

const alice = { id: "u-alice", username: "alice", name: "Alice", unixLogin: "alice" };

afterEach(() => vi.restoreAllMocks());

function setUp(consumers: TickConsumer[], readings?: AcceptedReadings) {
  let clock = Date.parse("2026-12-01T10:00:00Z");
  const fleet = new FleetState({ offlineAfterMs: 5000, simulated: true, now: () => clock });
  const gpu = makeGpu({ index: 0 });
  const booking: LiveBooking = {
    reservationId: "r-1",
    hostId: "h1",
    hostName: "node-a",
    gpus: [{ uuid: gpu.uuid, index: 0 }],
    bookedBy: { id: "u-bob", username: "bob", name: "Bob" },
    startsAt: new Date(clock - 60_000).toISOString(),
    endsAt: new Date(clock + 3_600_000).toISOString(),
    purpose: "test",
  };
  const tick = new Tick({ fleet, readings, bookings: { current: () => [booking] }, directory: staticDirectory([alice]), consumers, now: () => clock });
  fleet.connectHost("h1", "node-a", true);
  const read = () => fleet.ingest("h1", makeSnapshot([gpu], clock, { processes: [makeProcess(gpu, { pid: 7, user: "alice" })] }));
  return { tick, gpu, read, advance: (ms: number) => (clock += ms), now: () => clock };
}

function recorder(name: string, runs: TickConsumer["runs"], seen: { name: string; view: TickView }[]): TickConsumer {
  return { name, runs, consume: (view) => void seen.push({ name, view }) };
}

describe("the tick", () => {
  it("builds one view per tick and hands it to each consumer in order; the leader's consumers only while it leads", async () => {
    const seen: { name: string; view: TickView }[] = [];
    const { tick, gpu, read, now } = setUp([recorder("rules", "leader", seen), recorder("rollups", "everywhere", seen), recorder("live", "everywhere", seen)]);
    read();
    tick.runTick(now());
    expect(seen.map((entry) => entry.name)).toEqual(["rollups", "live"]);

    const stop = await tick.leaderJob.start();
    seen.length = 0;
    tick.runTick(now());
    expect(seen.map((entry) => entry.name)).toEqual(["rules", "rollups", "live"]);
    // One view, the same object for all of them.
    expect(new Set(seen.map((entry) => entry.view)).size).toBe(1);
    const view = seen[0].view;
    // Bob booked it, Alice runs there: the state and the attribution, and the booking by GPU.
    expect(view.gpuStates[gpu.uuid]).toMatchObject({ state: "conflict", reservationId: "r-1", bookedBy: { id: "u-bob" } });
    expect(view.gpuStates[gpu.uuid].processes[0]).toMatchObject({ pid: 7, runner: { id: "u-alice" }, intruder: true });
    expect(view.activeBookings.get(gpu.uuid)?.reservationId).toBe("r-1");
    // Nothing moved since the first tick.
    expect(view.changed).toEqual({});
    expect(tick.gpuStates()).toBe(view.gpuStates);

    await stop();
    seen.length = 0;
    tick.runTick(now());
    expect(seen.map((entry) => entry.name)).toEqual(["rollups", "live"]);
  });

  it("checks for silent hosts first, and tells what changed", () => {
    const seen: { name: string; view: TickView }[] = [];
    const { tick, gpu, read, advance, now } = setUp([recorder("live", "everywhere", seen)]);
    read();
    expect(Object.keys(tick.runTick(now())!.changed)).toEqual([gpu.uuid]);
    advance(6000);
    const view = tick.runTick(now())!;
    expect(view.hosts[0].online).toBe(false);
    expect(view.changed[gpu.uuid]?.state).toBe("offline");
  });

  it("keeps going when a consumer throws: the others still get the view", () => {
    const seen: { name: string; view: TickView }[] = [];
    const broken: TickConsumer = {
      name: "broken",
      runs: "everywhere",
      consume: () => {
        throw new Error("boom");
      },
    };
    const { tick, read, now } = setUp([broken, recorder("live", "everywhere", seen)]);
    read();
    tick.runTick(now());
    tick.runTick(now());
    expect(seen.map((entry) => entry.name)).toEqual(["live", "live"]);
  });

  it("brings the readings accepted since the last tick, each once; a tick that could not be built leaves them to the next", () => {
    const seen: { name: string; view: TickView }[] = [];
    const readings = new AcceptedReadings();
    const { tick, gpu, advance, now } = setUp([recorder("rollups", "everywhere", seen)], readings);
    const host = { id: "h1", simulated: true };
    readings.add(host, makeSnapshot([gpu], now()));
    readings.add(host, makeSnapshot([gpu], now() + 1000));
    tick.runTick(now());
    advance(1000);
    tick.runTick(now());
    expect(seen.map((entry) => entry.view.readings.length)).toEqual([2, 0]);

    // A reconciliation that fails builds no view: the reading waits for the next tick that does.
    const failing = new Tick({
      fleet: new FleetState({ offlineAfterMs: 5000, simulated: true, now }),
      readings,
      bookings: { current: () => [] },
      directory: staticDirectory([]),
      consumers: [recorder("rollups", "everywhere", seen)],
      reconciler: {
        run: () => {
          throw new Error("reconciliation failed");
        },
        current: () => ({}),
      },
    });
    seen.length = 0;
    readings.add(host, makeSnapshot([gpu], now()));
    vi.spyOn(log, "error").mockImplementation(() => {});
    expect(failing.runTick(now())).toBeNull();
    tick.runTick(now());
    expect(seen.map((entry) => entry.view.readings.map((reading) => reading.snapshot.sampledAt))).toEqual([[new Date(now()).toISOString()]]);
  });

  it("gives up the oldest half of the readings no tick took, and counts them", () => {
    const readings = new AcceptedReadings(4);
    const host = { id: "h1", simulated: true };
    const gpu = makeGpu();
    for (let second = 0; second < 5; second++) readings.add(host, makeSnapshot([gpu], second * 1000));
    expect(readings.take().map((reading) => Date.parse(reading.snapshot.sampledAt))).toEqual([2000, 3000, 4000]);
    expect(readings.dropped).toBe(2);
    expect(readings.take()).toEqual([]);
  });
});

describe("the tick's leader job", () => {
  it("is named after its consumers, as /api/health lists it", () => {
    const leader = (name: string): TickConsumer => ({ name, runs: "leader" });
    const { tick } = setUp([leader("alerts"), leader("enforcement"), { name: "live deltas", runs: "everywhere" }, leader("webhook deliveries")]);
    expect(tick.leaderJob.name).toBe("alerts, enforcement and webhook deliveries");
  });
});

describe("when the tick runs", () => {
  const second = Date.parse("2026-12-01T10:00:00Z");

  it("runs half a second after the whole second on which agents sample, away from their burst", () => {
    expect(second + 100 + delayToPhase(second + 100, 1000)).toBe(second + 500);
    expect(second + 800 + delayToPhase(second + 800, 1000)).toBe(second + 1500);
  });

  it("does not tick twice when its timer fires a little early, nor skip a second when it fires a little late", () => {
    expect(second + 498 + delayToPhase(second + 498, 1000)).toBe(second + 1500);
    expect(second + 500 + delayToPhase(second + 500, 1000)).toBe(second + 1500);
    expect(second + 530 + delayToPhase(second + 530, 1000)).toBe(second + 1500);
  });

  it("keeps to other intervals too", () => {
    expect(second + 10 + delayToPhase(second + 10, 500)).toBe(second + 250);
    expect(second + 100 + delayToPhase(second + 100, 100)).toBe(second + 150);
  });
});
