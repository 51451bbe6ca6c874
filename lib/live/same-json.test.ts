import { describe, expect, it } from "vitest";
import { sameJson } from "@/lib/live/same-json";

describe("sameJson", () => {
  it("answers what comparing the two values' JSON answers", () => {
    const bookedBy = { id: "u1", username: "alice", name: "Alice" };
    const process = { pid: 7, person: bookedBy, reservationId: null, login: "alice", evidence: { kind: "login", value: "alice" }, intruder: false };
    const state = { state: "booked_in_use", reservationId: "r1", bookedBy, processes: [process], problem: null };
    const pairs: [unknown, unknown][] = [
      [state, structuredClone(state)],
      [state, { ...state, processes: [{ ...process, intruder: true }] }],
      [state, { ...state, processes: [] }],
      [state, { ...state, processes: [process, process] }],
      [{ ...process, falseClaim: "r2" }, process],
      [{ ...process, falseClaim: undefined }, process],
      [state, { ...state, problem: "1 uncorrected ECC error" }],
      [{ a: null }, {}],
      [{ a: [] }, { a: {} }],
      [[1, 2], [2, 1]],
      [1, "1"],
      [null, {}],
    ];
    for (const [a, b] of pairs) {
      expect(sameJson(a, b)).toBe(JSON.stringify(a) === JSON.stringify(b));
      expect(sameJson(b, a)).toBe(JSON.stringify(a) === JSON.stringify(b));
    }
  });

  it("does not mind the order of keys", () => {
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
  });
});
