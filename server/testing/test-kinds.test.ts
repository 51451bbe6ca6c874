import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readTestFiles, slowReason } from "@/server/testing/test-kinds";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** Source text put together from parts, so that this file's own text shows no slow sign and it stays in the fast project. */
const text = (...parts: string[]) => parts.join("");

describe("which tests are fast", () => {
  it("calls a test slow for a database, a server, a process or a real wait, and pure logic fast", () => {
    expect(slowReason('import { formatBytes } from "@/lib/format/format";\nit("x", () => expect(formatBytes(1)).toBe("1 B"));')).toBeNull();
    expect(slowReason(text("useTestDatabase", "();"))).toBe("a database");
    expect(slowReason(text('import { createServer } from "node:', 'http";'))).toBe("a server, socket or Redis");
    expect(slowReason(text("const live = await startLiveServer", "(fleet, {});"))).toBe("a server, socket or Redis");
    expect(slowReason(text('import { startSlapd } from "@/server/testing/', 'slapd";'))).toBe("a server, socket or Redis");
    expect(slowReason(text('import { spawn } from "node:', 'child_process";'))).toBe("a child process");
    expect(slowReason(text("await new Promise((resolve) => setTimeout", "(resolve, 100));"))).toBe("a real-time wait");
    expect(slowReason(text("await vi.waitFor", "(() => expect(seen).toBe(1));"))).toBe("a real-time wait");
    expect(slowReason(text("vi.useFakeTimers();\nawait vi.waitFor", "(() => expect(seen).toBe(1));"))).toBeNull();
  });

  it("puts pure logic with the fast tests and a database test with the slow", () => {
    const files = readTestFiles(root, ["lib", "server"]);
    const kind = (file: string) => slowReason(files.find((entry) => entry.file === file)!.text);
    expect(kind("server/testing/test-kinds.test.ts")).toBeNull();
    expect(kind("lib/format/format.test.ts")).toBeNull();
    expect(kind("server/bookings/commands/concurrency.test.ts")).toBe("a database");
  });
});
