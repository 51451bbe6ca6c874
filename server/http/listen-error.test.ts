import { createServer, type Server } from "node:net";
import { describe, expect, it } from "vitest";
import { ConfigError } from "@/server/core/env";
import { describeListenError } from "@/server/http/listen-error";

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
}

async function failureOn(port: number): Promise<unknown> {
  const second = createServer();
  const failure = await listen(second, port).then(
    () => null,
    (error: unknown) => error,
  );
  second.close();
  return failure;
}

/** Two neighbouring ports held by this test (the kernel picks the first; tried again when its neighbour is taken). */
async function holdTwoPorts(): Promise<{ port: number; close: () => void }> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const first = createServer();
    await listen(first, 0);
    const port = (first.address() as { port: number }).port;
    const second = createServer();
    const held = await listen(second, port + 1).then(
      () => true,
      () => false,
    );
    if (held) return { port, close: () => (first.close(), second.close()) };
    first.close();
  }
  throw new Error("found no two free neighbouring ports");
}

describe("a port that cannot be opened", () => {
  it("is one line naming the port and a next port that was checked free, skipping one that is taken too", async () => {
    const held = await holdTwoPorts();
    try {
      const described = await describeListenError(await failureOn(held.port), held.port, "127.0.0.1");
      expect(described).toBeInstanceOf(ConfigError);
      const message = (described as ConfigError).message;
      expect(message).toContain(`port ${held.port}`);
      expect(message).not.toContain(`PORT=${held.port + 1} `);
      const suggested = Number(/PORT=(\d+)/.exec(message)?.[1]);
      expect(suggested).toBeGreaterThan(held.port + 1);
      expect(message).not.toContain("\n");
    } finally {
      held.close();
    }
  });

  it("suggests no port when none of the next ones is free", async () => {
    const failure = Object.assign(new Error("listen EADDRINUSE"), { code: "EADDRINUSE" });
    const checked: number[] = [];
    const described = await describeListenError(failure, 3400, "0.0.0.0", async (port) => (checked.push(port), false));
    expect(checked[0]).toBe(3401);
    expect((described as ConfigError).message).toContain("choose a free one: PORT=<port> npm start");
    expect((described as ConfigError).message).not.toMatch(/PORT=\d/);
  });

  it("leaves other errors as they are", async () => {
    const other = new Error("boom");
    expect(await describeListenError(other, 3000, "0.0.0.0")).toBe(other);
  });
});
