import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { probeHost, untilAnswering } from "@/server/http/until-answering";

let server: Server | null = null;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

/** A server whose health check answers 503 the first `refusals` times, then 200. */
async function serverThatWarmsUp(refusals: number): Promise<{ port: number; asked: () => number }> {
  let asked = 0;
  server = createServer((request, response) => {
    asked += 1;
    response.statusCode = request.url === "/api/health" && asked > refusals ? 200 : 503;
    response.end("{}");
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { port: (server!.address() as AddressInfo).port, asked: () => asked };
}

describe("untilAnswering", () => {
  it("waits for an answer of the health check itself, not for the port to open", async () => {
    const { port, asked } = await serverThatWarmsUp(3);
    expect(await untilAnswering(port, "127.0.0.1", { timeoutMs: 30_000 })).toBe(true);
    expect(asked()).toBe(4);
  });

  it("gives up at its deadline when nothing answers", async () => {
    const { port } = await serverThatWarmsUp(Number.POSITIVE_INFINITY);
    expect(await untilAnswering(port, "0.0.0.0", { timeoutMs: 300 })).toBe(false);
  });

  it("reaches a server listening on every address through the loopback", () => {
    expect(probeHost("0.0.0.0")).toBe("127.0.0.1");
    expect(probeHost("::")).toBe("[::1]");
    expect(probeHost("fd00::5")).toBe("[fd00::5]");
    expect(probeHost("gpudesk.lab")).toBe("gpudesk.lab");
  });
});
