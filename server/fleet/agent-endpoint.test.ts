import { io, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_NAMESPACE } from "@/lib/live/live";
import { useTestDatabase } from "@/server/testing/test-db";
import { makeGpu, makeSnapshot, uniqueName } from "@/server/testing/factories";
import type { TestAgentServer } from "@/server/testing/agent-server";

let server: TestAgentServer;
let createHost: typeof import("@/server/hosts/host-registry").createHost;
let db: typeof import("@/server/core/db").db;

beforeAll(async () => {
  await useTestDatabase();
  ({ createHost } = await import("@/server/hosts/host-registry"));
  ({ db } = await import("@/server/core/db"));
  const { startTestAgentServer } = await import("@/server/testing/agent-server");
  server = await startTestAgentServer({ maxMessageBytes: 200_000 });
});
afterAll(async () => {
  await server.close();
});

async function connect(token: string): Promise<Socket> {
  const socket = io(server.url + AGENT_NAMESPACE, { auth: { token }, transports: ["websocket"], reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("connect_error", reject);
  });
  return socket;
}

async function registeredAgent() {
  const { host, token } = await createHost(uniqueName("node"));
  return { host, socket: await connect(token) };
}

describe("the /agent endpoint", () => {
  it("refuses a connection without a valid host token", async () => {
    await expect(connect("gpd_host_not-a-real-token")).rejects.toThrow("unknown host token");
    await expect(connect("")).rejects.toThrow("missing host token");
  });

  it("stores valid readings and refuses invalid ones in the same batch, by index", async () => {
    const { host, socket } = await registeredAgent();
    const gpu = makeGpu();
    const good = makeSnapshot([gpu], Date.now() - 2000);
    const alsoGood = makeSnapshot([{ ...gpu, utilizationGpuPct: 77 }], Date.now() - 1000);
    const badType = { ...good, gpus: [{ ...gpu, utilizationGpuPct: "77 %" }] };
    const missing = { host: good.host, sampledAt: good.sampledAt };
    const reply = await socket.emitWithAck("agent:samples", { snapshots: [good, badType, alsoGood, missing], dropped: 0 });
    expect(reply.accepted).toBe(2);
    expect(reply.rejected.map((entry: { index: number }) => entry.index)).toEqual([1, 3]);
    expect(reply.rejected[0].error).toContain("gpus.0.utilizationGpuPct");
    const live = server.fleet.snapshot().gpus.find((entry) => entry.uuid === gpu.uuid);
    expect(live?.utilizationGpuPct).toBe(77);
    expect(live?.hostId).toBe(host.id);
    socket.close();
  });

  it("keeps the GPU topology an agent reports in its hello, and drops text without a matrix", async () => {
    const { host, socket } = await registeredAgent();
    const matrix = "\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV4\t0-15\nGPU1\tNV4\t X \t0-15\n";
    const hello = { agentVersion: "test", source: "nvidia-smi", intervalMs: 1000, hostName: host.name };
    expect(await socket.emitWithAck("agent:hello", { ...hello, topology: matrix })).toMatchObject({ ok: true });
    const stored = async () => (await db().host.findUniqueOrThrow({ where: { id: host.id }, select: { topology: true } })).topology;
    expect(await stored()).toBe(matrix);
    expect(await socket.emitWithAck("agent:hello", { ...hello, topology: "NVIDIA-SMI has failed" })).toMatchObject({ ok: true });
    expect(await stored()).toBeNull();
    socket.close();
  });

  it("keeps the fabric an agent reports in its hello after checking it; a fabric that is not one is dropped, the hello still counts", async () => {
    const { host, socket } = await registeredAgent();
    const hello = { agentVersion: "test", source: "nvidia-smi", intervalMs: 1000, hostName: host.name };
    const fabric = { devices: [{ name: "mlx5_0", ports: [{ port: 1, state: "ACTIVE", rateGbps: 400, linkLayer: "InfiniBand", subnetPrefix: "fe80:0000:0000:00aa", netDevice: "ib0" }] }] };
    expect(await socket.emitWithAck("agent:hello", { ...hello, fabric })).toMatchObject({ ok: true });
    const stored = async () => (await db().host.findUniqueOrThrow({ where: { id: host.id }, select: { fabric: true } })).fabric;
    expect(JSON.parse((await stored()) ?? "null")).toEqual(fabric);
    // A device name that would end up in a shell line, or a made-up field: nothing of it is kept.
    const forged = { devices: [{ name: "mlx5_0; rm -rf /", ports: [] }] };
    expect(await socket.emitWithAck("agent:hello", { ...hello, fabric: forged })).toMatchObject({ ok: true });
    expect(await stored()).toBeNull();
    expect(await socket.emitWithAck("agent:hello", { ...hello, fabric: { ...fabric, trusted: true } })).toMatchObject({ ok: true });
    expect(await stored()).toBeNull();
    socket.close();
  });

  it("keeps the interfaces with an address a newer agent reports beside its fabric; an agent that reports none leaves them unknown", async () => {
    const { host, socket } = await registeredAgent();
    const hello = { agentVersion: "test", source: "nvidia-smi", intervalMs: 1000, hostName: host.name };
    const fabric = { devices: [{ name: "mlx5_0", ports: [{ port: 1, state: "ACTIVE", rateGbps: 400, linkLayer: "InfiniBand", subnetPrefix: "fe80:0000:0000:00aa", netDevice: "ib0" }] }] };
    const interfaces = [{ name: "eth0", addresses: ["10.1.2.3", "fe80::1"] }];
    expect(await socket.emitWithAck("agent:hello", { ...hello, fabric, interfaces })).toMatchObject({ ok: true });
    const stored = async () => JSON.parse((await db().host.findUniqueOrThrow({ where: { id: host.id }, select: { fabric: true } })).fabric ?? "null");
    expect(await stored()).toEqual({ ...fabric, interfaces });
    const { ncclHints } = await import("@/lib/domain/fabric");
    // ib0 has no address here: NCCL_SOCKET_IFNAME names eth0, which has one.
    expect(ncclHints(await stored())).toEqual({ ibDevices: ["mlx5_0"], socketInterface: "eth0", socketNote: null });
    // A host without RDMA still has its interfaces kept; a list that is not one is dropped alone.
    expect(await socket.emitWithAck("agent:hello", { ...hello, fabric: null, interfaces })).toMatchObject({ ok: true });
    expect(await stored()).toEqual({ devices: [], interfaces });
    expect(await socket.emitWithAck("agent:hello", { ...hello, fabric, interfaces: [{ name: "eth0; reboot", addresses: [] }] })).toMatchObject({ ok: true });
    expect(await stored()).toEqual(fabric);
    // An older agent: the fabric alone, and no guess at the interface.
    expect(await socket.emitWithAck("agent:hello", { ...hello, fabric })).toMatchObject({ ok: true });
    expect(ncclHints(await stored())).toMatchObject({ socketInterface: null, socketNote: expect.stringContaining("reports no network interfaces") });
    socket.close();
  });

  it("answers a malformed message with an error, counts it, and keeps the agent connected", async () => {
    const { socket } = await registeredAgent();
    const before = server.ingest.counters.rejectedMessages;
    const reply = await socket.emitWithAck("agent:samples", "not a batch");
    expect(reply).toMatchObject({ ok: false });
    const empty = await socket.emitWithAck("agent:samples", { snapshots: [], dropped: 0 });
    expect(empty).toMatchObject({ ok: false });
    socket.emit("agent:samples", { snapshots: [1] }); // no acknowledgement callback
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.ingest.counters.rejectedMessages).toBe(before + 3);
    expect(socket.connected).toBe(true);
    const gpu = makeGpu();
    const ok = await socket.emitWithAck("agent:samples", { snapshots: [makeSnapshot([gpu], Date.now())], dropped: 0 });
    expect(ok.accepted).toBe(1);
    socket.close();
  });

  it("disconnects an agent whose message is over the size bound, without harm to others", async () => {
    const { socket } = await registeredAgent();
    const other = await registeredAgent();
    const disconnected = new Promise<string>((resolve) => socket.once("disconnect", resolve));
    socket.emit("agent:samples", { snapshots: [{ padding: "x".repeat(300_000) }], dropped: 0 }, () => {});
    expect(await disconnected).toBe("transport close");
    const reply = await other.socket.emitWithAck("agent:samples", { snapshots: [makeSnapshot([makeGpu()], Date.now())], dropped: 0 });
    expect(reply.accepted).toBe(1);
    other.socket.close();
  });

  it("never files a reading of host B's GPU under host A's token", async () => {
    const a = await registeredAgent();
    const b = await registeredAgent();
    const gpuOfB = makeGpu();
    const first = await b.socket.emitWithAck("agent:samples", { snapshots: [makeSnapshot([gpuOfB], Date.now())], dropped: 0 });
    expect(first.accepted).toBe(1);
    const forged = await a.socket.emitWithAck("agent:samples", {
      snapshots: [makeSnapshot([{ ...gpuOfB, utilizationGpuPct: 1 }], Date.now(), { host: { name: b.host.name, driverVersion: null, cudaVersion: null } })],
      dropped: 0,
    });
    expect(forged.accepted).toBe(0);
    expect(forged.rejected[0].error).toContain("belongs to another host");
    expect(server.fleet.snapshot().gpus.find((gpu) => gpu.uuid === gpuOfB.uuid)?.hostId).toBe(b.host.id);
    a.socket.close();
    b.socket.close();
  });

  it("takes another host's GPU UUID in another letter case for that host's GPU, not a new one", async () => {
    const a = await registeredAgent();
    const b = await registeredAgent();
    const gpuOfB = makeGpu();
    expect((await b.socket.emitWithAck("agent:samples", { snapshots: [makeSnapshot([gpuOfB], Date.now())], dropped: 0 })).accepted).toBe(1);
    const shouted = { ...gpuOfB, uuid: gpuOfB.uuid.toUpperCase() };
    expect(shouted.uuid).not.toBe(gpuOfB.uuid);
    const forged = await a.socket.emitWithAck("agent:samples", { snapshots: [makeSnapshot([shouted], Date.now())], dropped: 0 });
    expect(forged.accepted).toBe(0);
    expect(forged.rejected[0].error).toContain("belongs to another host");
    expect(server.fleet.snapshot().gpus.filter((gpu) => gpu.uuid.toLowerCase() === gpuOfB.uuid.toLowerCase()).map((gpu) => gpu.hostId)).toEqual([b.host.id]);
    // B's own agent in another case is still B's one GPU.
    expect((await b.socket.emitWithAck("agent:samples", { snapshots: [makeSnapshot([shouted], Date.now())], dropped: 0 })).accepted).toBe(1);
    expect(server.fleet.snapshot().gpus.filter((gpu) => gpu.hostId === b.host.id).map((gpu) => gpu.uuid)).toEqual([gpuOfB.uuid]);
    a.socket.close();
    b.socket.close();
  });

  it("refuses readings from a clock far in the future", async () => {
    const { socket } = await registeredAgent();
    const reply = await socket.emitWithAck("agent:samples", {
      snapshots: [makeSnapshot([makeGpu()], Date.now() + 3_600_000)],
      dropped: 0,
    });
    expect(reply.accepted).toBe(0);
    expect(reply.rejected[0].error).toContain("future");
    socket.close();
  });

  it("marks the host offline as soon as its agent disconnects", async () => {
    const { host, socket } = await registeredAgent();
    await socket.emitWithAck("agent:samples", { snapshots: [makeSnapshot([makeGpu()], Date.now())], dropped: 0 });
    expect(server.fleet.snapshot().hosts.find((entry) => entry.id === host.id)?.online).toBe(true);
    socket.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.fleet.snapshot().hosts.find((entry) => entry.id === host.id)?.online).toBe(false);
  });
});
