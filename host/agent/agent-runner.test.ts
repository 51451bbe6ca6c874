import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_BUFFER_REACH_MS, type AgentSamples } from "@/lib/domain/agent-protocol";
import type { Snapshot } from "@/lib/domain/snapshot";
import { createAgentRunner } from "@/host/agent/agent-runner";
import { createSocketTransport } from "@/host/agent/socket-transport";
import { FleetState } from "@/server/fleet/fleet-state";
import { makeGpu, makeSnapshot, uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";
import type { startTestAgentServer as StartServer } from "@/server/testing/agent-server";

let startTestAgentServer: typeof StartServer;
let createHost: typeof import("@/server/hosts/host-registry").createHost;

beforeAll(async () => {
  await useTestDatabase();
  ({ startTestAgentServer } = await import("@/server/testing/agent-server"));
  ({ createHost } = await import("@/server/hosts/host-registry"));
});

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** An agent whose every reading carries a sequence number in its utilization. */
function sequencedAgent(serverUrl: string, token: string, intervalMs = 100) {
  const gpu = makeGpu();
  let sequence = 0;
  const logs: string[] = [];
  const transport = createSocketTransport({
    serverUrl,
    token,
    hello: { agentVersion: "test", source: "simulated", intervalMs, hostName: "test" },
    log: (line) => logs.push(line),
  });
  const runner = createAgentRunner({
    read: async () => makeSnapshot([{ ...gpu, utilizationGpuPct: ++sequence % 101 }], Date.now()),
    transport,
    intervalMs,
    log: (line) => logs.push(line),
  });
  stops.push(() => runner.stop());
  return { gpu, runner, logs, taken: () => sequence };
}

describe("agent buffering and replay", () => {
  it("keeps readings while the server is down and delivers all of them, with their own times, when it comes up", async () => {
    const probe = await startTestAgentServer();
    const port = Number(new URL(probe.url).port);
    await probe.close();
    const { token } = await createHost(uniqueName("node"));
    const agent = sequencedAgent(`http://127.0.0.1:${port}`, token);
    agent.runner.start();
    await waitFor(() => agent.taken() >= 20);
    expect(agent.runner.buffer.size).toBeGreaterThanOrEqual(20);

    const fleet = new FleetState({ offlineAfterMs: 60_000, simulated: false });
    const server = await startTestAgentServer({ port, fleet });
    stops.push(server.close);
    await waitFor(() => agent.runner.buffer.size === 0, 40_000);
    const points = fleet.history(agent.gpu.uuid)?.points ?? [];
    const delivered = points.map((point) => point.util);
    // Every reading taken before the last delivery is there, in order, none twice.
    expect(delivered.length).toBeGreaterThanOrEqual(20);
    expect(delivered.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const times = points.map((point) => point.t);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(new Set(times).size).toBe(times.length);
    // One log line per state change, not one per reconnection attempt.
    expect(agent.logs.filter((line) => line.startsWith("cannot connect")).length).toBeLessThanOrEqual(2);
    expect(agent.logs.some((line) => line.startsWith("connected to"))).toBe(true);
  }, 60_000);

  it("loses nothing across a server restart", async () => {
    const fleet = new FleetState({ offlineAfterMs: 60_000, simulated: false });
    let server = await startTestAgentServer({ fleet });
    const port = Number(new URL(server.url).port);
    const { token } = await createHost(uniqueName("node"));
    const agent = sequencedAgent(server.url, token);
    agent.runner.start();
    await waitFor(() => (fleet.history(agent.gpu.uuid)?.points.length ?? 0) >= 5);
    await server.close();
    const takenAtStop = agent.taken();
    await waitFor(() => agent.taken() >= takenAtStop + 20);
    server = await startTestAgentServer({ port, fleet });
    stops.push(server.close);
    const target = agent.taken();
    await waitFor(() => (fleet.history(agent.gpu.uuid)?.points.length ?? 0) >= target, 40_000);
    const utils = (fleet.history(agent.gpu.uuid)?.points ?? []).map((point) => point.util);
    expect(utils.slice(0, target)).toEqual(Array.from({ length: target }, (_, i) => (i + 1) % 101));
  }, 60_000);

  it("reports how many readings it had to drop when its buffer overflowed", async () => {
    const { token, host } = await createHost(uniqueName("node"));
    const probe = await startTestAgentServer();
    const port = Number(new URL(probe.url).port);
    await probe.close();
    const gpu = makeGpu();
    const transport = createSocketTransport({
      serverUrl: `http://127.0.0.1:${port}`,
      token,
      hello: { agentVersion: "test", source: "simulated", intervalMs: 100, hostName: host.name },
      log: () => {},
    });
    let reads = 0;
    const runner = createAgentRunner({
      read: async () => makeSnapshot([gpu], Date.now() + reads++),
      transport,
      intervalMs: 100,
      bufferCapacity: 5,
    });
    stops.push(() => runner.stop());
    runner.start();
    // Counted, not slept for: with no server, twelve readings into a buffer of five.
    await waitFor(() => reads >= 12);
    expect(runner.buffer.size).toBe(5);
    const server = await startTestAgentServer({ port });
    stops.push(server.close);
    await waitFor(() => server.ingest.counters.droppedByAgents > 0, 40_000);
    // At least the seven of those twelve that did not fit.
    expect(server.ingest.counters.droppedByAgents).toBeGreaterThanOrEqual(7);
  }, 60_000);

  it("keeps reading on time while the server is slow to acknowledge", async () => {
    let reads = 0;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const runner = createAgentRunner({
      read: async () => makeSnapshot([makeGpu()], Date.now() + reads++),
      // Connected, but the first acknowledgement only comes when the test says so.
      transport: {
        connected: true,
        onConnect: () => {},
        send: async (batch) => {
          await gate;
          return { accepted: batch.snapshots.length, rejected: [] };
        },
        close: async () => {},
      },
      intervalMs: 50,
    });
    runner.start();
    stops.push(() => runner.stop());
    await waitFor(() => reads >= 5);
    expect(runner.buffer.size).toBeGreaterThanOrEqual(4);
    release();
    await waitFor(() => runner.buffer.size <= 1);
  });

  it("reads right after the source's tick, on its phase, and on its own clock only when the source goes quiet", async () => {
    const intervalMs = 200;
    const readAt: number[] = [];
    const tickAt: number[] = [];
    const listeners = new Set<() => void>();
    const runner = createAgentRunner({
      read: async () => {
        readAt.push(Date.now());
        return makeSnapshot([makeGpu()], Date.now());
      },
      onSourceTick: (listener) => {
        listeners.add(listener);
        return () => void listeners.delete(listener);
      },
      transport: { connected: false, onConnect: () => {}, send: async () => ({ accepted: 0, rejected: [] }), close: async () => {} },
      intervalMs,
    });
    runner.start();
    stops.push(() => runner.stop());
    // The source ticks 70 ms after each whole interval of the clock, as nvidia-smi's own phase would.
    const firstTick = Math.ceil(Date.now() / intervalMs) * intervalMs + 70;
    for (let i = 0; i < 6; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, firstTick + i * intervalMs - Date.now())));
      tickAt.push(Date.now());
      for (const listener of listeners) listener();
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Every tick is read at once (not 130 ms later on the clock's next whole interval), and the clock adds no read in between.
    const ticksRead = tickAt.filter((at) => readAt.some((read) => read >= at && read - at < 40));
    expect(ticksRead).toHaveLength(tickAt.length);
    // Between two ticks that came on time the clock reads nothing; only a gap longer than one and a half
    // intervals (this test's own timer late on a loaded machine) lets the clock's backstop read once.
    for (let i = 1; i < tickAt.length; i += 1) {
      const between = readAt.filter((read) => read > tickAt[i - 1]! + 40 && read < tickAt[i]!).length;
      expect(between).toBeLessThanOrEqual(tickAt[i]! - tickAt[i - 1]! > 1.5 * intervalMs ? 1 : 0);
    }
    // Quiet source: the clock reads again within one and a half intervals and a beat.
    const quietFrom = Date.now();
    await waitFor(() => readAt.some((read) => read > quietFrom), 3 * intervalMs);
  });

  it("keeps at least an hour of 1 Hz readings by default", () => {
    const runner = createAgentRunner({
      read: async () => makeSnapshot([], Date.now()),
      transport: { connected: false, onConnect: () => {}, send: async () => ({ accepted: 0, rejected: [] }), close: async () => {} },
      intervalMs: 1000,
    });
    expect(runner.buffer.capacity).toBeGreaterThanOrEqual(3600);
  });
});

describe("readings beyond the buffer's reach", () => {
  it("are dropped and counted instead of sent, since the server would refuse them", async () => {
    const gpu = makeGpu();
    const sent: AgentSamples[] = [];
    const ages = [AGENT_BUFFER_REACH_MS + 60_000, AGENT_BUFFER_REACH_MS + 30_000, 1000];
    let connect = () => {};
    let connected = false;
    const runner = createAgentRunner({
      // Three readings in a row, two of them from before the reach (a clock that jumped, a --buffer of days).
      read: async () => makeSnapshot([gpu], Date.now() - (ages.shift() ?? 0)),
      transport: {
        get connected() {
          return connected;
        },
        onConnect: (listener) => (connect = listener),
        send: async (batch) => {
          sent.push(batch);
          return { accepted: batch.snapshots.length, rejected: [] };
        },
        close: async () => {},
      },
      intervalMs: 100,
    });
    runner.start();
    stops.push(() => runner.stop());
    await waitFor(() => runner.buffer.size >= 3);
    connected = true;
    connect();
    await waitFor(() => sent.length > 0);
    expect(sent[0].dropped).toBe(2);
    expect((sent[0].snapshots as Snapshot[]).every((snapshot) => Date.parse(snapshot.sampledAt) > Date.now() - AGENT_BUFFER_REACH_MS)).toBe(true);
    expect(sent[0].snapshots.length).toBeGreaterThanOrEqual(1);
  });
});
