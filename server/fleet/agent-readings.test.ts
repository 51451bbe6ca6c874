import { io, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_BUFFER_REACH_MS } from "@/lib/domain/agent-protocol";
import { AGENT_NAMESPACE } from "@/lib/live/live";
import type { GpuSample, Snapshot } from "@/lib/domain/snapshot";
import { makeGpu, makeSnapshot, uniqueName } from "@/server/testing/factories";
import type { TestAgentServer } from "@/server/testing/agent-server";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Readings with impossible values, through the real /agent endpoint: each
 * is refused with its reason while the good ones around it are kept, the
 * agent stays connected, and nothing impossible reaches the usage history
 * (which is fed every accepted reading, as in server/index.ts).
 */

let server: TestAgentServer;
let createHost: typeof import("@/server/hosts/host-registry").createHost;
const recorded: Snapshot[] = [];

beforeAll(async () => {
  await useTestDatabase();
  ({ createHost } = await import("@/server/hosts/host-registry"));
  const { startTestAgentServer } = await import("@/server/testing/agent-server");
  server = await startTestAgentServer({ onAccepted: (snapshot) => recorded.push(snapshot) });
});
afterAll(async () => {
  await server.close();
});

async function registeredAgent(): Promise<Socket> {
  const { token } = await createHost(uniqueName("node"));
  const socket = io(server.url + AGENT_NAMESPACE, { auth: { token }, transports: ["websocket"], reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("connect_error", reject);
  });
  return socket;
}

interface Reply {
  accepted: number;
  rejected: { index: number; error: string }[];
}

const send = (socket: Socket, snapshots: unknown[]): Promise<Reply> => socket.emitWithAck("agent:samples", { snapshots, dropped: 0 });
const liveGpu = (uuid: string) => server.fleet.snapshot().gpus.find((gpu) => gpu.uuid === uuid);
const withGpu = (gpu: GpuSample, at = Date.now()) => makeSnapshot([gpu], at);
const MINUTE = 60_000;

describe("agent readings with impossible values", () => {
  it("refuses each impossible reading with its reason, keeps the good ones, and stays connected", async () => {
    const socket = await registeredAgent();
    const gpu = makeGpu({ memoryTotalMiB: 81_559 });
    const other = makeGpu({ index: 1 });
    const before = Date.now() - 5000;
    const cases: [string, Snapshot, string][] = [
      ["negative utilization", withGpu({ ...gpu, utilizationGpuPct: -5 }, before), "gpus.0.utilizationGpuPct"],
      ["1e308 utilization", withGpu({ ...gpu, utilizationGpuPct: 1e308 }, before), "gpus.0.utilizationGpuPct"],
      ["memory utilization above 100 %", withGpu({ ...gpu, utilizationMemoryPct: 140 }, before), "gpus.0.utilizationMemoryPct"],
      ["memory used above total", withGpu({ ...gpu, memoryUsedMiB: 200_000 }, before), "above the total"],
      ["negative memory", withGpu({ ...gpu, memoryUsedMiB: -1 }, before), "gpus.0.memoryUsedMiB"],
      ["a temperature no GPU reaches", withGpu({ ...gpu, temperatureC: 4000 }, before), "gpus.0.temperatureC"],
      ["negative power", withGpu({ ...gpu, powerDrawW: -300 }, before), "gpus.0.powerDrawW"],
      ["duplicated GPU index", makeSnapshot([gpu, { ...other, index: gpu.index }], before), "GPU index 0 appears twice"],
      ["duplicated GPU UUID", makeSnapshot([gpu, { ...other, uuid: gpu.uuid }], before), "appears twice"],
      ["a process with negative memory", makeSnapshot([gpu], before, { processes: [{ gpuUuid: gpu.uuid, pid: 7, name: "x", usedMemoryMiB: -5, user: null, command: null, startedAt: null, container: null, slurmJobId: null, reservationId: null }] }), "processes.0.usedMemoryMiB"],
      ["dated year 1", { ...withGpu(gpu), sampledAt: "0001-01-01T00:00:00.000Z" }, "older than any agent buffer reaches"],
      ["dated 1970", { ...withGpu(gpu), sampledAt: "1970-01-01T00:00:00.000Z" }, "older than any agent buffer reaches"],
      ["older than the agent buffer reaches", withGpu(gpu, Date.now() - AGENT_BUFFER_REACH_MS - 30 * MINUTE), "older than any agent buffer reaches"],
      ["an hour in the future", withGpu(gpu, Date.now() + 60 * MINUTE), "in the future"],
    ];
    const good = withGpu({ ...gpu, utilizationGpuPct: 42, memoryUsedMiB: 81_559 });
    const reply = await send(socket, [...cases.map(([, snapshot]) => snapshot), good]);

    expect(reply.accepted).toBe(1);
    expect(reply.rejected.map((entry) => entry.index)).toEqual(cases.map((_, index) => index));
    cases.forEach(([what, , reason], index) => {
      expect(reply.rejected[index].error, what).toContain(reason);
    });
    expect(liveGpu(gpu.uuid)).toMatchObject({ utilizationGpuPct: 42, memoryUsedMiB: 81_559 });
    expect(socket.connected).toBe(true);

    // A good reading after the refusals is taken as usual.
    expect(await send(socket, [withGpu({ ...gpu, utilizationGpuPct: 43 })])).toEqual({ accepted: 1, rejected: [] });
    expect(liveGpu(gpu.uuid)?.utilizationGpuPct).toBe(43);
    socket.close();
  });

  it("files a reading 4.5 minutes ahead at its arrival, so that the current reading after it is shown", async () => {
    const socket = await registeredAgent();
    const gpu = makeGpu();
    const ahead = await send(socket, [withGpu({ ...gpu, utilizationGpuPct: 11 }, Date.now() + 4.5 * MINUTE)]);
    expect(ahead).toEqual({ accepted: 1, rejected: [] });
    const filedAt = Date.parse(liveGpu(gpu.uuid)!.sampledAt);
    expect(filedAt).toBeLessThanOrEqual(Date.now());

    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await send(socket, [withGpu({ ...gpu, utilizationGpuPct: 22 })])).toEqual({ accepted: 1, rejected: [] });
    const live = liveGpu(gpu.uuid)!;
    expect(live.utilizationGpuPct).toBe(22);
    expect(Date.parse(live.sampledAt)).toBeGreaterThan(filedAt);
    const host = server.fleet.snapshot().hosts.find((entry) => entry.id === live.hostId);
    expect(Date.parse(host!.lastSeenAt!)).toBeLessThanOrEqual(Date.now());
    socket.close();
  });

  it("hands the usage history only readings within bounds and never dated ahead of the server", () => {
    expect(recorded.length).toBeGreaterThan(0);
    for (const snapshot of recorded) {
      expect(Date.parse(snapshot.sampledAt)).toBeLessThanOrEqual(Date.now());
      expect(Date.parse(snapshot.sampledAt)).toBeGreaterThan(Date.now() - AGENT_BUFFER_REACH_MS - 15 * MINUTE);
      for (const gpu of snapshot.gpus) {
        expect(gpu.utilizationGpuPct ?? 0).toBeGreaterThanOrEqual(0);
        expect(gpu.utilizationGpuPct ?? 0).toBeLessThanOrEqual(100);
        expect(gpu.memoryUsedMiB ?? 0).toBeLessThanOrEqual((gpu.memoryTotalMiB ?? Infinity) * 1.01 + 1);
      }
    }
  });
});
