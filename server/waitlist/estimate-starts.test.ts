import { describe, expect, it } from "vitest";
import { estimateStarts } from "@/server/waitlist/estimate-starts";

const NOW = Date.parse("2026-12-01T10:00:00Z");
const min = (minutes: number) => NOW + minutes * 60_000;
const HORIZON = 7 * 24 * 3600_000;
const nodeA = { name: "node-a", gpuIds: ["a0", "a1"] };
const nodeB = { name: "node-b", gpuIds: ["b0", "b1", "b2", "b3"] };

describe("estimated starts of waiting requests", () => {
  it("starts a request across nodes when enough hosts are free at once, holds the GPUs of every node, and holds back who comes after", () => {
    const nodeC = { name: "node-c", gpuIds: ["c0", "c1"] };
    const busy = [
      { gpuId: "a0", startMs: NOW, endMs: min(60) },
      { gpuId: "c1", startMs: NOW, endMs: min(120) },
    ];
    const entries = [
      // Two nodes of two GPUs: b is free now, a frees at 60, c at 120.
      { id: "two-nodes", hostName: null, count: 4, durationMinutes: 60, nodes: [{ hostName: null, count: 2 }, { hostName: null, count: 2 }] },
      // Named parts on a and c, behind it: not before 60, and from 60 to 120 all of a is the first request's.
      { id: "a-and-c", hostName: null, count: 2, durationMinutes: 30, nodes: [{ hostName: "node-a", count: 1 }, { hostName: "node-c", count: 1 }] },
      // One GPU on b: free now, but the request across nodes ahead may take any host, so not before its start.
      { id: "one-on-b", hostName: "node-b", count: 1, durationMinutes: 30 },
    ];
    const estimates = estimateStarts(entries, [nodeA, nodeB, nodeC], busy, NOW, HORIZON);
    expect(estimates.get("two-nodes")).toBe(min(60));
    expect(estimates.get("a-and-c")).toBe(min(120));
    // The first request holds two GPUs of b from 60 to 120: b0 and b1; b2 is free at 60.
    expect(estimates.get("one-on-b")).toBe(min(60));
    // Alone, the named parts start now (a1 and c0 are free): 120 is the doing of the request ahead, which takes all of a from 60.
    expect(estimateStarts([entries[1]!], [nodeA, nodeB, nodeC], busy, NOW, HORIZON).get("a-and-c")).toBe(NOW);
  });

  it("plays the queue forward on the current bookings' end times, in order", () => {
    const busy = [
      { gpuId: "a0", startMs: NOW, endMs: min(30) },
      { gpuId: "a1", startMs: NOW, endMs: min(60) },
    ];
    const entries = [
      { id: "first", hostName: "node-a", count: 1, durationMinutes: 60 },
      { id: "second", hostName: "node-a", count: 1, durationMinutes: 60 },
      { id: "third", hostName: "node-a", count: 1, durationMinutes: 60 },
    ];
    const estimates = estimateStarts(entries, [nodeA], busy, NOW, HORIZON);
    // a0 frees at 30 (first), a1 at 60 (second), the first grant ends at 90 (third).
    expect([...estimates.values()]).toEqual([min(30), min(60), min(90)]);
  });

  it("never estimates a request before an earlier one that holds it back", () => {
    const busy = [
      { gpuId: "a0", startMs: NOW, endMs: min(120) },
      { gpuId: "a1", startMs: NOW, endMs: min(120) },
      { gpuId: "b0", startMs: NOW, endMs: min(45) },
    ];
    const entries = [
      { id: "two-on-a", hostName: "node-a", count: 2, durationMinutes: 30 },
      { id: "one-on-a", hostName: "node-a", count: 1, durationMinutes: 30 },
      { id: "three-anywhere", hostName: null, count: 3, durationMinutes: 30 },
      { id: "one-on-b", hostName: "node-b", count: 1, durationMinutes: 30 },
    ];
    const estimates = estimateStarts(entries, [nodeA, nodeB], busy, NOW, HORIZON);
    expect(estimates.get("two-on-a")).toBe(min(120));
    expect(estimates.get("one-on-a")).toBe(min(150));
    // node-b has three free GPUs now, but "any host" waits behind the node-a requests.
    expect(estimates.get("three-anywhere")).toBe(min(150));
    expect(estimates.get("one-on-b")).toBe(min(150));
  });

  it("gives no estimate when nothing fits within the horizon, and none to those it holds back", () => {
    const busy = [
      { gpuId: "a0", startMs: NOW, endMs: NOW + 2 * HORIZON },
      { gpuId: "a1", startMs: NOW, endMs: NOW + 2 * HORIZON },
    ];
    const entries = [
      { id: "too-big", hostName: "node-b", count: 5, durationMinutes: 30 },
      { id: "long-wait", hostName: "node-a", count: 1, durationMinutes: 30 },
      { id: "behind-it", hostName: "node-a", count: 1, durationMinutes: 30 },
      { id: "elsewhere", hostName: "node-b", count: 1, durationMinutes: 30 },
    ];
    const estimates = estimateStarts(entries, [nodeA, nodeB], busy, NOW, HORIZON);
    expect(estimates.get("too-big")).toBeNull();
    expect(estimates.get("long-wait")).toBeNull();
    expect(estimates.get("behind-it")).toBeNull();
    // Neither the impossible request nor node-a's queue holds node-b back.
    expect(estimates.get("elsewhere")).toBe(NOW);
  });

  it("plans a request its limit holds back from when the limit leaves room, taking nothing ahead of later requests (the grant skips it)", () => {
    const busy = [{ gpuId: "a0", startMs: NOW, endMs: min(60) }];
    const entries = [
      { id: "limited", hostName: "node-a", count: 1, durationMinutes: 30, limitFreesAtMs: min(90) },
      { id: "next", hostName: "node-a", count: 1, durationMinutes: 30 },
      { id: "after", hostName: "node-a", count: 1, durationMinutes: 30 },
    ];
    const estimates = estimateStarts(entries, [nodeA], busy, NOW, HORIZON);
    // a1 is free now: the grant passes over "limited" and gives it to "next"; "after" follows on a1 at 30.
    expect(estimates.get("next")).toBe(NOW);
    expect(estimates.get("after")).toBe(min(30));
    // From 90, when the limit leaves room, a GPU is free again.
    expect(estimates.get("limited")).toBe(min(90));
  });

  it("gives no estimate to a request whose limit never leaves room by itself, and it holds nobody back", () => {
    const entries = [
      { id: "never", hostName: "node-a", count: 1, durationMinutes: 30, limitFreesAtMs: null },
      { id: "next", hostName: "node-a", count: 2, durationMinutes: 30 },
      { id: "anywhere", hostName: null, count: 1, durationMinutes: 30 },
    ];
    const estimates = estimateStarts(entries, [nodeA, nodeB], [], NOW, HORIZON);
    expect(estimates.get("never")).toBeNull();
    expect(estimates.get("next")).toBe(NOW);
    expect(estimates.get("anywhere")).toBe(NOW);
  });
});
