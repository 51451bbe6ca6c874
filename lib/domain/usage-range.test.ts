import { describe, expect, it } from "vitest";
import { parseSpan, rangeQuerySchema, rangeSearch, resolveRange } from "@/lib/domain/usage-range";

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);

describe("usage ranges", () => {
  it("resolves presets to spans ending now, 24 h by default", () => {
    expect(resolveRange(rangeQuerySchema.parse({}), NOW)).toEqual({ choice: "24h", fromMs: NOW - 24 * 3600_000, toMs: NOW });
    expect(resolveRange(rangeQuerySchema.parse({ range: "7d" }), NOW).fromMs).toBe(NOW - 7 * 24 * 3600_000);
  });

  it("takes a custom range, cut at now", () => {
    const query = rangeQuerySchema.parse({ range: "custom", from: "2026-11-29T00:00:00Z", to: "2026-12-05T00:00:00+01:00" });
    expect(resolveRange(query, NOW)).toEqual({ choice: "custom", fromMs: Date.UTC(2026, 10, 29), toMs: NOW });
    expect(rangeQuerySchema.parse({ from: "2026-11-29T00:00:00Z", to: "2026-11-29T01:00:00Z" }).choice).toBe("custom");
  });

  it("refuses a custom range that is incomplete, backwards or too long", () => {
    expect(rangeQuerySchema.safeParse({ range: "custom", from: "2026-11-29T00:00:00Z" }).success).toBe(false);
    expect(rangeQuerySchema.safeParse({ range: "custom", from: "2026-11-29T00:00:00Z", to: "2026-11-28T00:00:00Z" }).success).toBe(false);
    expect(rangeQuerySchema.safeParse({ range: "custom", from: "2024-01-01T00:00:00Z", to: "2026-01-01T00:00:00Z" }).success).toBe(false);
    expect(rangeQuerySchema.safeParse({ range: "2y" }).success).toBe(false);
  });

  it("writes the query string back", () => {
    expect(rangeSearch({ choice: "30d" })).toBe("range=30d");
    expect(rangeSearch({ choice: "custom", fromMs: Date.UTC(2026, 0, 1), toMs: Date.UTC(2026, 0, 2) })).toBe(
      "range=custom&from=2026-01-01T00%3A00%3A00.000Z&to=2026-01-02T00%3A00%3A00.000Z",
    );
  });

  it("parses spans", () => {
    expect(parseSpan("7d")).toBe(7 * 24 * 3600_000);
    expect(parseSpan("90m")).toBe(90 * 60_000);
    expect(parseSpan("2w")).toBe(14 * 24 * 3600_000);
    expect(parseSpan("7")).toBeNull();
    expect(parseSpan("0d")).toBeNull();
  });
});
