import { describe, expect, it } from "vitest";
import { hashOf, hexOf, intBetween, smoothNoise, unitOf, windowAt } from "./hash";

describe("hash", () => {
  it("depends on how the parts are split, not only on their concatenation", () => {
    expect(hashOf("ab", "c")).not.toBe(hashOf("a", "bc"));
    expect(hashOf(1, 2)).toBe(hashOf(1, 2));
  });

  it("spreads consecutive inputs over [0, 1)", () => {
    const values = Array.from({ length: 1000 }, (_, i) => unitOf("k", i));
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...values)).toBeLessThan(1);
    const low = values.filter((v) => v < 0.5).length;
    expect(low).toBeGreaterThan(430);
    expect(low).toBeLessThan(570);
  });

  it("keeps integers and hex within bounds", () => {
    for (let i = 0; i < 200; i++) {
      const n = intBetween(3, 5, "n", i);
      expect(n).toBeGreaterThanOrEqual(3);
      expect(n).toBeLessThanOrEqual(5);
    }
    expect(hexOf(20, "x")).toMatch(/^[0-9a-f]{20}$/);
  });

  it("finds the window that holds any instant, the same from anywhere inside it", () => {
    const length = 90 * 60_000;
    for (const t of [0, 1, 1_741_000_000_000, 1_741_000_000_000 + length / 2]) {
      const w = windowAt(t, length, "slot");
      expect(w.start).toBeLessThanOrEqual(t);
      expect(w.end).toBeGreaterThan(t);
      expect(w.end - w.start).toBe(length);
      expect(windowAt(w.start, length, "slot")).toEqual(w);
      expect(windowAt(w.end, length, "slot").index).toBe(w.index + 1);
    }
  });

  it("makes noise that drifts rather than jumps", () => {
    for (let t = 0; t < 100_000; t += 1000) {
      const a = smoothNoise(20_000, t, "n");
      expect(a).toBeGreaterThanOrEqual(0);
      expect(a).toBeLessThan(1);
      expect(Math.abs(smoothNoise(20_000, t + 1000, "n") - a)).toBeLessThan(0.1);
    }
  });
});
