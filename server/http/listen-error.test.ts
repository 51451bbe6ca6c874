import { createServer, type Server } from "node:net";
import { describe, expect, it } from "vitest";
import { ConfigError } from "@/server/env";
import { describeListenError } from "@/server/http/listen-error";

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
}

describe("a port that cannot be opened", () => {
  it("is one line naming the port and how to choose another, for a port another program holds", async () => {
    const holder = createServer();
    await listen(holder, 0);
    const port = (holder.address() as { port: number }).port;
    const second = createServer();
    const failure = await listen(second, port).then(
      () => null,
      (error: unknown) => error,
    );
    holder.close();
    second.close();
    const described = describeListenError(failure, port, "127.0.0.1");
    expect(described).toBeInstanceOf(ConfigError);
    const message = (described as ConfigError).message;
    expect(message).toContain(`port ${port}`);
    expect(message).toContain(`PORT=${port + 1}`);
    expect(message).not.toContain("\n");
  });

  it("leaves other errors as they are", () => {
    const other = new Error("boom");
    expect(describeListenError(other, 3000, "0.0.0.0")).toBe(other);
  });
});
