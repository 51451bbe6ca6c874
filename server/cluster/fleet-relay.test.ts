import { afterEach, describe, expect, it, vi } from "vitest";
import type { Snapshot } from "@/lib/domain/snapshot";
import { FleetRelay, type RelayMessage, type RelayTransport } from "@/server/cluster/fleet-relay";
import { KEYFRAME_EVERY_MS, RELAY_FORMAT_VERSION } from "@/server/cluster/relay-wire";
import { simulatedFleet, simulatedSnapshotAt } from "@/host/collector/simulated/simulated-source";
import { FleetState } from "@/server/fleet/fleet-state";
import { log } from "@/server/core/log";

/**
 * Instances joined by an in-memory bus that, like serverSideEmit, never
 * delivers to the sender and, like Redis pub/sub, reaches only those
 * listening at the time (`join` later: an instance that starts late), and
 * may lose a message (`dropNext`).
 */
function cluster(now: () => number) {
  const handlers = new Map<string, (message: unknown) => void>();
  const sent: RelayMessage[] = [];
  let drops = 0;
  const transport = (self: string): RelayTransport => ({
    send(message) {
      sent.push(message);
      if (drops > 0) {
        drops -= 1;
        return;
      }
      // Through JSON, as over Redis.
      for (const [name, handler] of handlers) if (name !== self) handler(JSON.parse(JSON.stringify(message)));
    },
    listen(handler) {
      handlers.set(self, handler);
      return () => handlers.delete(self);
    },
  });
  const join = (name: string) => {
    const fleet = new FleetState({ offlineAfterMs: 5000, simulated: false, now });
    const relay = new FleetRelay({ fleet, instanceId: name, transport: transport(name), now });
    return { fleet, relay };
  };
  return { join, sent, dropNext: (count = 1) => void (drops = count) };
}

function twoInstances(now: () => number) {
  const { join, sent, dropNext } = cluster(now);
  return { a: join("a"), b: join("b"), sent, dropNext };
}

function snapshotAt(ms: number, util = 50): Snapshot {
  return {
    host: { name: "node-a", driverVersion: "580.1", cudaVersion: "13.0" },
    gpus: [
      {
        index: 0,
        uuid: "GPU-relay-0",
        name: "H100",
        pciBusId: "00000000:01:00.0",
        memoryTotalMiB: 81559,
        memoryUsedMiB: 1000,
        utilizationGpuPct: util,
        utilizationMemoryPct: 10,
        temperatureC: 40,
        powerDrawW: 100,
        powerLimitW: 700,
        fanSpeedPct: null,
        smClockMHz: 1500,
        pstate: "P0",
        migMode: null,
        eccErrorsUncorrected: 0,
      },
    ],
    processes: [],
    sampledAt: new Date(ms).toISOString(),
  } as Snapshot;
}

const host = { id: "host-1", name: "node-a", simulated: false };

describe("fleet relay", () => {
  it("shows a host whose agent is on instance A, live, on instance B", () => {
    let clock = Date.parse("2026-01-01T00:00:00Z");
    const { a, b } = twoInstances(() => clock);
    // What the agent endpoint and ingest of A do for a local agent.
    a.fleet.connectHost(host.id, host.name, host.simulated);
    a.fleet.ingest(host.id, snapshotAt(clock));
    a.relay.forwardSnapshot(host, snapshotAt(clock));
    a.relay.flush();

    const seen = b.fleet.snapshot();
    expect(seen.hosts.map((h) => [h.name, h.online])).toEqual([["node-a", true]]);
    expect(seen.gpus.map((gpu) => [gpu.uuid, gpu.utilizationGpuPct])).toEqual([["GPU-relay-0", 50]]);

    // B's own offline check keeps it online while readings keep coming through A.
    for (let i = 1; i <= 10; i += 1) {
      clock += 1000;
      a.relay.forwardSnapshot(host, snapshotAt(clock, 50 + i));
      a.relay.flush();
      b.fleet.checkOffline();
    }
    expect(b.fleet.current().hosts[0].online).toBe(true);
    expect(b.fleet.current().gpus[0].utilizationGpuPct).toBe(60);
  });

  it("marks the host offline on B at once when its agent leaves A, and after the silence when A dies", () => {
    let clock = Date.parse("2026-01-01T00:00:00Z");
    const { a, b } = twoInstances(() => clock);
    a.fleet.connectHost(host.id, host.name, host.simulated);
    a.relay.forwardSnapshot(host, snapshotAt(clock));
    a.relay.flush();
    a.fleet.disconnectHost(host.id);
    a.relay.flush();
    expect(b.fleet.current().hosts[0].online).toBe(false);

    // Back on A, then A dies without a word: B's silence rule takes it offline.
    a.fleet.connectHost(host.id, host.name, host.simulated);
    a.relay.forwardSnapshot(host, snapshotAt(clock));
    a.relay.flush();
    expect(b.fleet.current().hosts[0].online).toBe(true);
    clock += 6000;
    b.fleet.checkOffline();
    expect(b.fleet.current().hosts[0].online).toBe(false);
  });

  it("keeps a host online on B when its agent moved to B before A's word of the old connection arrived", () => {
    const clock = Date.parse("2026-01-01T00:00:00Z");
    const { a, b } = twoInstances(() => clock);
    a.fleet.connectHost(host.id, host.name, host.simulated);
    a.relay.forwardSnapshot(host, snapshotAt(clock));
    a.relay.flush();
    // The agent reconnects to B and reports there …
    b.fleet.connectHost(host.id, host.name, host.simulated);
    b.fleet.ingest(host.id, snapshotAt(clock + 1));
    // … and only then does A tell that the old connection closed.
    a.fleet.disconnectHost(host.id);
    a.relay.flush();
    expect(b.fleet.current().hosts[0].online).toBe(true);
  });

  it("never echoes what it applied, and forwards host removals", () => {
    const clock = Date.parse("2026-01-01T00:00:00Z");
    const { a, b, sent } = twoInstances(() => clock);
    a.fleet.connectHost(host.id, host.name, host.simulated);
    a.relay.forwardSnapshot(host, snapshotAt(clock));
    a.relay.flush();
    b.relay.flush();
    expect(sent.every((message) => message.from === "a")).toBe(true);

    b.fleet.removeHost(host.id);
    b.relay.flush();
    expect(a.fleet.current().hosts).toEqual([]);
    a.relay.flush();
    expect(sent.filter((message) => message.from === "a")).toHaveLength(1);
  });

  it("ignores malformed messages and readings too old for the live state", () => {
    const clock = Date.parse("2026-01-01T00:00:00Z");
    const { a, b, sent } = twoInstances(() => clock);
    const warn = vi.spyOn(log, "warn").mockImplementation(() => {});
    b.relay.apply({ from: "x", events: [{ kind: "snapshot", hostId: "h" }] });
    b.relay.apply("nonsense");
    expect(b.fleet.current().hosts).toEqual([]);
    a.relay.forwardSnapshot(host, snapshotAt(clock - 60 * 60_000));
    a.relay.flush();
    expect(sent).toHaveLength(0);
    expect(warn).toHaveBeenCalledTimes(2);
  });
});

/** A simulated host with training runs (processes) and fractional power readings. */
const [spec] = simulatedFleet({ seed: 7, gpuCount: 8 });
const simHost = { id: "host-sim", name: spec.hostName, simulated: true };

/** What an instance's own agent and ingest do with a reading, and the relay hook after it. */
function readOn(a: { fleet: FleetState; relay: FleetRelay }, at: number): Snapshot {
  const snapshot = simulatedSnapshotAt(spec, 7, at);
  a.fleet.ingest(simHost.id, snapshot);
  a.relay.forwardSnapshot(simHost, snapshot);
  a.relay.flush();
  return snapshot;
}

/** The GPUs as a viewer of the instance would get them in its snapshot (sorted, without the host name the sender's fleet filed). */
const gpusOf = (fleet: FleetState) => fleet.current().gpus.map((gpu) => ({ ...gpu })).sort((x, y) => x.index - y.index);

describe("fleet relay, compact readings", () => {
  afterEach(() => vi.restoreAllMocks());

  it("relays a keyframe, then rows of what changed, and B holds the same values as A", () => {
    let clock = Date.parse("2026-01-01T00:00:00Z");
    const { a, b, sent } = twoInstances(() => clock);
    a.fleet.connectHost(simHost.id, simHost.name, simHost.simulated);
    a.relay.flush();
    for (let i = 0; i < 30; i += 1) {
      readOn(a, clock);
      expect(gpusOf(b.fleet)).toEqual(gpusOf(a.fleet));
      clock += 1000;
    }
    const readings = sent.flatMap((message) => message.e).filter((event) => event.k === "key" || event.k === "row");
    expect(readings.map((event) => event.k)).toEqual(["key", ...Array(29).fill("row")]);
    expect(gpusOf(a.fleet).some((gpu) => gpu.processes.length > 0)).toBe(true);
    // The rows are a small part of the reading they stand for.
    const rowBytes = JSON.stringify(readings[1]).length;
    expect(rowBytes * 5).toBeLessThan(JSON.stringify(readings[0]).length);
    // B's viewers get it as a local reading: in B's delta, and B's history has the points.
    const delta = b.fleet.drainDelta();
    expect(delta?.gpus.map((gpu) => gpu.uuid).sort()).toEqual(gpusOf(a.fleet).map((gpu) => gpu.uuid).sort());
    const uuid = gpusOf(a.fleet)[0].uuid;
    expect(b.fleet.history(uuid)?.points).toEqual(a.fleet.history(uuid)?.points);
  });

  it("gives an instance that starts late the full state: it asks, the sender answers with a keyframe", () => {
    let clock = Date.parse("2026-01-01T00:00:00Z");
    const bus = cluster(() => clock);
    const a = bus.join("a");
    a.fleet.connectHost(simHost.id, simHost.name, simHost.simulated);
    for (let i = 0; i < 5; i += 1, clock += 1000) readOn(a, clock);

    const late = bus.join("late");
    // The first rows it hears cannot be applied; it asks A for a keyframe …
    readOn(a, clock);
    clock += 1000;
    expect(late.fleet.current().hosts).toEqual([]);
    late.relay.flush();
    expect(bus.sent.at(-1)?.e).toEqual([{ k: "need", to: "a", h: [simHost.id] }]);
    // … which A's next reading is.
    readOn(a, clock);
    expect(bus.sent.at(-1)?.e.map((event) => event.k)).toEqual(["key"]);
    expect(late.fleet.current().hosts.map((host) => [host.name, host.online])).toEqual([[simHost.name, true]]);
    expect(gpusOf(late.fleet)).toEqual(gpusOf(a.fleet));
    clock += 1000;
    readOn(a, clock);
    expect(bus.sent.at(-1)?.e.map((event) => event.k)).toEqual(["row"]);
    expect(gpusOf(late.fleet)).toEqual(gpusOf(a.fleet));
  });

  it("heals a lost message with the next keyframe, without applying rows across the gap", () => {
    let clock = Date.parse("2026-01-01T00:00:00Z");
    const { a, b, dropNext } = twoInstances(() => clock);
    a.fleet.connectHost(simHost.id, simHost.name, simHost.simulated);
    readOn(a, clock);
    const before = gpusOf(b.fleet);
    clock += 1000;
    dropNext();
    readOn(a, clock);
    clock += 1000;
    // The reading after the lost one is not applied (its rows are relative to the lost one) …
    readOn(a, clock);
    expect(gpusOf(b.fleet)).toEqual(before);
    // … and B's request for a keyframe is lost too: the periodic keyframe heals it.
    dropNext();
    b.relay.flush();
    for (let waited = 0; waited <= KEYFRAME_EVERY_MS; waited += 1000) {
      clock += 1000;
      readOn(a, clock);
    }
    expect(gpusOf(b.fleet)).toEqual(gpusOf(a.fleet));
  });

  it("follows a host whose agent moves to another instance and back, one chain per host", () => {
    let clock = Date.parse("2026-01-01T00:00:00Z");
    const bus = cluster(() => clock);
    const [a, b, c] = [bus.join("a"), bus.join("b"), bus.join("c")];
    a.fleet.connectHost(simHost.id, simHost.name, simHost.simulated);
    for (let i = 0; i < 3; i += 1, clock += 1000) readOn(a, clock);
    expect(gpusOf(c.fleet)).toEqual(gpusOf(a.fleet));
    // The agent reconnects to B: B's first reading of it is a keyframe, C follows B's chain.
    b.fleet.connectHost(simHost.id, simHost.name, simHost.simulated);
    for (let i = 0; i < 3; i += 1, clock += 1000) readOn(b, clock);
    expect(gpusOf(c.fleet)).toEqual(gpusOf(b.fleet));
    // Back to A, whose chain C no longer holds: C asks, and A's next reading is a keyframe.
    readOn(a, clock);
    clock += 1000;
    c.relay.flush();
    readOn(a, clock);
    expect(bus.sent.at(-1)?.e.map((event) => event.k)).toEqual(["key"]);
    expect(gpusOf(c.fleet)).toEqual(gpusOf(a.fleet));
  });

  it("skips a message of another format version with one warning, and a malformed event without losing the rest", () => {
    const clock = Date.parse("2026-01-01T00:00:00Z");
    const { a, b, sent } = twoInstances(() => clock);
    const warn = vi.spyOn(log, "warn").mockImplementation(() => {});
    a.fleet.connectHost(simHost.id, simHost.name, simHost.simulated);
    readOn(a, clock);
    const good = sent.at(-1)!;

    b.relay.apply({ ...good, v: RELAY_FORMAT_VERSION + 1 });
    b.relay.apply({ ...good, v: RELAY_FORMAT_VERSION + 1 });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toMatch(/format/);

    const freshB = twoInstances(() => clock).b;
    const malformed = [{ k: "row", h: simHost.id }, { k: "key", h: "other", n: 0, name: "x", simulated: false, s: { host: {} } }, 42, { k: "what" }];
    expect(() => freshB.relay.apply({ ...good, e: [...malformed, ...good.e] })).not.toThrow();
    expect(warn).toHaveBeenCalledTimes(2);
    expect(freshB.relay.counters.skippedEvents).toBe(malformed.length);
    expect(gpusOf(freshB.fleet)).toEqual(gpusOf(a.fleet));
  });
});
