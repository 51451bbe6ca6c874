import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdapter } from "@socket.io/redis-adapter";
import { Redis } from "ioredis";
import { Server } from "socket.io";
import { io as connectSocket, type Socket as ClientSocket } from "socket.io-client";
import { afterAll, describe, expect, it } from "vitest";
import type { TerminateCommand } from "@/lib/domain/enforcement-protocol";
import { attachEnforcementChannel } from "@/server/enforcement/enforcement-channel";
import { redisForTests, TEST_REDIS_URL, uniqueRedisPrefix } from "@/server/testing/redis";

const reachable = await redisForTests("cross-instance enforcement tests");

const closers: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** A socket.io server on the Redis adapter whose /agent sockets are the host their handshake names (as the agent endpoint would). */
async function instance(key: string) {
  const pub = new Redis(TEST_REDIS_URL);
  const sub = pub.duplicate();
  const http: HttpServer = createServer();
  const io = new Server(http, { adapter: createAdapter(pub, sub, { key }) });
  const agents = io.of("/agent");
  agents.use((socket, next) => {
    const hostId = String(socket.handshake.auth.hostId);
    socket.data.host = { id: hostId, name: hostId, simulated: true };
    next();
  });
  const channel = attachEnforcementChannel(agents as never, async () => undefined, { clusterWide: true, refreshMs: 200 });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  closers.push(async () => {
    channel.stop();
    await new Promise((resolve) => io.close(resolve));
    pub.disconnect();
    sub.disconnect();
  });
  return { channel, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}` };
}

async function agent(url: string, hostId: string, enforcement: boolean): Promise<ClientSocket> {
  const socket = connectSocket(`${url}/agent`, { auth: { hostId }, transports: ["websocket"], reconnection: false });
  closers.push(() => void socket.disconnect());
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.emit("agent:hello", { enforcement });
  return socket;
}

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const command: TerminateCommand = {
  commandId: "c-1",
  pid: 4242,
  startedAt: null,
  gpuUuid: "GPU-x",
  alertId: "a-1",
  reservationId: "r-1",
  protect: { reservationId: "r-1", logins: ["alice"] },
  killAfterSeconds: 10,
  reason: "test",
} as TerminateCommand;

describe.skipIf(!reachable)("enforcement across instances (real Redis)", () => {
  it("lets the leader on one instance ask an agent connected to another, and only one that allows it", async () => {
    const key = uniqueRedisPrefix("enforce");
    const leader = await instance(key);
    const other = await instance(key);
    const allowing = await agent(other.url, "host-allowing", true);
    await agent(other.url, "host-refusing", false);
    const received: TerminateCommand[] = [];
    allowing.on("agent:terminate", (request: TerminateCommand) => received.push(request));

    await waitFor(() => leader.channel.capable("host-allowing"));
    expect(leader.channel.capable("host-refusing")).toBe(false);
    expect(leader.channel.send("host-refusing", command)).toBe(false);

    expect(leader.channel.send("host-allowing", command)).toBe(true);
    await waitFor(() => received.length > 0);
    expect(received).toEqual([command]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received).toHaveLength(1);

    // The agent leaves: after the next look, the leader no longer counts on it.
    allowing.disconnect();
    await waitFor(() => !leader.channel.capable("host-allowing"));
  });
});
