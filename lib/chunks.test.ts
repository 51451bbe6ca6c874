import { describe, expect, it } from "vitest";
import { chunks } from "@/lib/chunks";

describe("chunks", () => {
  it("cuts a list into parts of at most the size, in order, the last one shorter", () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunks(["a", "b"], 2)).toEqual([["a", "b"]]);
    expect(chunks([], 500)).toEqual([]);
  });

  it("refuses a size that would never end or make no sense", () => {
    expect(() => chunks([1], 0)).toThrow(RangeError);
    expect(() => chunks([1], 1.5)).toThrow(RangeError);
  });
});
