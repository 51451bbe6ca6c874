import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * What loading the server's code pulls in: a single SQLite instance (the default, and the
 * embedded 8-GPU demo) needs neither pg nor ioredis and socket.io's Redis adapter; they are
 * loaded when PostgreSQL or REDIS_URL needs them (docs/benchmark.md, "Server memory").
 * Run in a child process: Vitest's own process has loaded other things. (esbuild, which the
 * server also loads only to build the host bundle, cannot be checked here: tsx runs on it.)
 */
describe("the server's start-up imports", () => {
  it("leave out what only PostgreSQL or Redis needs", () => {
    const script = `
      await import("./server/index.ts");
      await import("./server/core/db.ts");
      const { createRequire } = await import("node:module");
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes("/node_modules/"));
      process.stdout.write(JSON.stringify(loaded));
    `;
    const result = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8", timeout: 120_000 });
    expect(result.status, result.stderr).toBe(0);
    const loaded = JSON.parse(result.stdout) as string[];
    const packages = new Set(loaded.map((file) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1]));
    // The check itself must see CommonJS packages that are loaded: socket.io is.
    expect(packages).toContain("socket.io");
    for (const unwanted of ["pg", "@prisma/adapter-pg", "ioredis", "@socket.io/redis-adapter"]) {
      expect(packages, unwanted).not.toContain(unwanted);
    }
  }, 120_000);
});
