import { afterEach, describe, expect, it, vi } from "vitest";
import { escapeLogText, log } from "@/lib/log";

describe("log", () => {
  afterEach(() => vi.restoreAllMocks());

  it("writes a host name holding a newline as one line: it cannot forge another entry", () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    log.info(`agent connected: host node-a\n2026-11-30T00:00:00.000Z info  admin alice signed in`);
    expect(written).toHaveLength(1);
    expect(written[0].split("\n")).toEqual([expect.stringContaining("host node-a\\n2026-11-30T00:00:00.000Z info  admin alice"), ""]);
  });

  it("escapes carriage returns, terminal escapes, DEL, C1 controls and Unicode line separators", () => {
    expect(escapeLogText("a\rb\tc\u001b[2Jd\u007fe\u0085f\u2028g\u2029h\u0000")).toBe("a\\rb\\tc\\x1b[2Jd\\x7fe\\x85f\\u2028g\\u2029h\\x00");
    expect(escapeLogText("plain text, ümlauts and emoji 🚀 stay")).toBe("plain text, ümlauts and emoji 🚀 stay");
  });
});
