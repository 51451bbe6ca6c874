import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSocketTransport } from "@/host/agent/socket-transport";
import type { TestAgentServer } from "@/server/testing/agent-server";
import { uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Rotating a host's token (an admin who suspects it leaked) must cut off
 * the agent that runs with the old one: the server drops its connection,
 * refuses it when it comes back, and says why in the agent's own log, so
 * that whoever runs it knows to install the new token.
 */

let server: TestAgentServer;
let hosts: typeof import("@/server/hosts/host-registry");

beforeAll(async () => {
  await useTestDatabase();
  hosts = await import("@/server/hosts/host-registry");
  const { startTestAgentServer } = await import("@/server/testing/agent-server");
  server = await startTestAgentServer();
}, 120_000);

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
  await server?.close();
});

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function agent(token: string, hostName: string) {
  const logs: string[] = [];
  const transport = createSocketTransport({
    serverUrl: server.url,
    token,
    hello: { agentVersion: "test", source: "simulated", intervalMs: 1000, hostName },
    log: (line) => logs.push(line),
  });
  closers.push(() => transport.close());
  return { transport, logs };
}

describe("a rotated host token", () => {
  it("drops the agent that runs with the old one, refuses it when it tries again, and lets the new one in", async () => {
    const name = uniqueName("rotated").toLowerCase();
    const { host, token } = await hosts.createHost(name);
    const old = agent(token, name);
    await until(() => old.transport.connected, "the agent to connect");

    const rotated = await hosts.rotateHostToken(host.id);
    server.disconnectAgents(host.id);
    await until(() => !old.transport.connected, "the agent to be dropped");
    // It tries again (a kick from the server is no reason to give up) and is told why it may not.
    await until(() => old.logs.some((line) => line.includes("unknown host token")), "the agent's log to say its token is refused");
    expect(old.transport.connected).toBe(false);

    const renewed = agent(rotated.token, name);
    await until(() => renewed.transport.connected, "the agent with the new token to connect");
    expect(renewed.transport.hostName()).toBe(name);
  });

  it("lets an agent that was dropped for another reason come back by itself", async () => {
    const name = uniqueName("kicked").toLowerCase();
    const { host, token } = await hosts.createHost(name);
    const kicked = agent(token, name);
    await until(() => kicked.transport.connected, "the agent to connect");
    server.disconnectAgents(host.id);
    await until(() => !kicked.transport.connected, "the agent to be dropped");
    await until(() => kicked.transport.connected, "the agent to reconnect");
  });
});
