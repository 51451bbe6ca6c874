import { describe, expect, it } from "vitest";
import {
  boundText,
  bracketedName,
  findEnvironValue,
  MAX_COMMAND_LENGTH,
  parseBootTime,
  parseCmdline,
  parseRealUid,
  parseBookingId,
  parseStat,
} from "@/host/collector/proc/parse-proc-files";
import { statText } from "@/host/collector/proc/fake-proc-tree";

describe("parseStat", () => {
  it("reads field 22 from a captured H200 line", () => {
    const line =
      "691 (gpudesk-hog) S 635 633 633 0 -1 4194560 6071 0 0 0 4 32 0 0 20 0 3 0 6817 17131106304 27445 18446744073709551615 94079634718720 0";
    expect(parseStat(line)).toEqual({ comm: "gpudesk-hog", startTicks: 6817 });
  });

  it.each(["a b", "x) (y", ") S 1 2 (", "((", "weird)"])("keeps comm %j whole", (comm) => {
    expect(parseStat(statText(42, comm, 98765))).toEqual({ comm, startTicks: 98765 });
  });

  it("returns null for truncated or foreign text", () => {
    expect(parseStat("")).toBeNull();
    expect(parseStat("42 (x) S 1 2 3")).toBeNull();
    expect(parseStat("no parentheses here")).toBeNull();
  });
});

describe("parseBootTime", () => {
  it("reads btime among the other lines", () => {
    expect(parseBootTime("cpu 1 2 3\nbtime 1700000000\nprocesses 5\n")).toBe(1_700_000_000);
    expect(parseBootTime("cpu 1 2 3\n")).toBeNull();
  });
});

describe("parseRealUid", () => {
  it("takes the real uid, not the effective one", () => {
    expect(parseRealUid("Name:\tx\nUid:\t1000\t0\t0\t0\n")).toBe(1000);
    expect(parseRealUid("Name:\tx\n")).toBeNull();
    expect(parseRealUid("Uid:\t4294967295\t0\t0\t0\n")).toBeNull();
  });
});

describe("parseCmdline", () => {
  it("joins argv with spaces and drops the trailing NUL", () => {
    expect(parseCmdline(Buffer.from("python3\0train.py\0--lr\x000.1\0"))).toBe("python3 train.py --lr 0.1");
  });

  it("is null when empty, so the caller falls back to the name", () => {
    expect(parseCmdline(Buffer.alloc(0))).toBeNull();
    expect(parseCmdline(Buffer.from("\0\0"))).toBeNull();
    expect(bracketedName("kworker/0:1")).toBe("[kworker/0:1]");
  });

  it("replaces control characters and bounds the length", () => {
    expect(parseCmdline(Buffer.from("sh\0-c\0echo a\nb\0"))).toBe("sh -c echo a b");
    const long = parseCmdline(Buffer.from(`python3\0${"x".repeat(10_000)}\0`));
    expect(long).toHaveLength(MAX_COMMAND_LENGTH);
  });

  it("never leaves half of a surrogate pair at the cut", () => {
    const text = `${"a".repeat(4095)}😀`;
    expect(boundText(text, 4096)).toBe("a".repeat(4095));
  });
});

describe("environ and booking ids", () => {
  const environ = Buffer.from("PATH=/bin\0GPUDESK_RESERVATION=res_1\0GPUDESK_RESERVATION=res_2\0X_GPUDESK_RESERVATION=no\0");

  it("returns the first value, as getenv does", () => {
    expect(findEnvironValue(environ, "GPUDESK_RESERVATION")).toBe("res_1");
    expect(findEnvironValue(environ, "MISSING")).toBeNull();
  });

  it("accepts only bounded, safe ids", () => {
    expect(parseBookingId("res_abc-123.4:5")).toBe("res_abc-123.4:5");
    expect(parseBookingId(" res_trim ")).toBe("res_trim");
    expect(parseBookingId("r".repeat(128))).toBe("r".repeat(128));
    expect(parseBookingId("r".repeat(129))).toBeNull();
    expect(parseBookingId("res; rm -rf /")).toBeNull();
    expect(parseBookingId("<script>")).toBeNull();
    expect(parseBookingId("")).toBeNull();
    expect(parseBookingId(null)).toBeNull();
  });
});
