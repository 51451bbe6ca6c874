import { describe, expect, it } from "vitest";
import type { Snapshot } from "@/lib/snapshot";
import { FleetRelay, type RelayMessage, type RelayTransport } from "@/server/cluster/fleet-relay";
import { FleetState } from "@/server/fleet/fleet-state";

/** Two instances joined by an in-memory bus that, like serverSideEmit, never delivers to the sender. */
function twoInstances(now: () => number) {
  const handlers = new Map<string, (message: unknown) => void>();
  const sent: RelayMessage[] = [];
  const transport = (self: string): RelayTransport => ({
    send(message) {
      sent.push(message);
      // Through JSON, as over Redis.
      for (const [name, handler] of handlers) if (name !== self) handler(JSON.parse(JSON.stringify(message)));
    },
    listen(handler) {
      handlers.set(self, handler);
      return () => handlers.delete(self);
    },
  });
  const make = (name: string) => {
    const fleet = new FleetState({ offlineAfterMs: 5000, simulated: false, now });
    const relay = new FleetRelay({ fleet, instanceId: name, transport: transport(name), now });
    return { fleet, relay };
  };
  return { a: make("a"), b: make("b"), sent };
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
    b.relay.apply({ from: "x", events: [{ kind: "snapshot", hostId: "h" }] });
    b.relay.apply("nonsense");
    expect(b.fleet.current().hosts).toEqual([]);
    a.relay.forwardSnapshot(host, snapshotAt(clock - 60 * 60_000));
    a.relay.flush();
    expect(sent).toHaveLength(0);
  });
});
