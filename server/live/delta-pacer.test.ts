import { describe, expect, it } from "vitest";
import { DeltaPacer } from "@/server/live/delta-pacer";

interface Arrival {
  host: string;
  sampledAt: number;
  at: number;
}

/**
 * Plays arrivals and flushes on one injected clock, as the live endpoint
 * does: each arrival is a change, a flush runs at once when `arrived` asks
 * for it and every `flushMs` otherwise. Returns when each delta went and
 * the arrivals it carried.
 */
function play(pacer: DeltaPacer, arrivals: Arrival[], flushMs: number, from: number, to: number): { at: number; hosts: string[] }[] {
  const sent: { at: number; hosts: string[] }[] = [];
  let waiting: string[] = [];
  const flush = (now: number) => {
    if (pacer.due(waiting.length, now)) {
      pacer.sent();
      sent.push({ at: now, hosts: waiting });
      waiting = [];
    }
  };
  const queue = [...arrivals].sort((a, b) => a.at - b.at);
  let next = 0;
  for (let poll = from; poll <= to; poll += flushMs) {
    while (next < queue.length && queue[next]!.at < poll) {
      const { host, sampledAt, at } = queue[next++]!;
      waiting.push(host);
      if (pacer.arrived(host, sampledAt, at)) flush(at);
    }
    flush(poll);
  }
  return sent;
}

/** Every host samples on the whole second; host i's reading arrives `delays[i]` ms after it. */
function seconds(first: number, count: number, delays: number[]): Arrival[] {
  const arrivals: Arrival[] = [];
  for (let s = 0; s < count; s++) {
    delays.forEach((delay, i) => arrivals.push({ host: `h${i}`, sampledAt: (first + s) * 1000, at: (first + s) * 1000 + delay }));
  }
  return arrivals;
}

describe("the live feed's delta pacing", () => {
  it("sends a lone host's reading the moment it arrives", () => {
    const pacer = new DeltaPacer({ maxHoldMs: 100 });
    const sent = play(pacer, seconds(10, 5, [3]), 25, 10_000, 15_000);
    expect(sent.map((delta) => delta.at)).toEqual([10_003, 11_003, 12_003, 13_003, 14_003]);
  });

  it("sends each second's burst as one delta, when its last due reading arrives", () => {
    const pacer = new DeltaPacer({ maxHoldMs: 100 });
    // 32 hosts whose readings arrive over 40 ms after each whole second.
    const delays = Array.from({ length: 32 }, (_, i) => 2 + (i * 38) / 31);
    const sent = play(pacer, seconds(10, 6, delays), 25, 10_000, 16_000);
    // The first second teaches the pacer who reports (it waits no one it has not heard of yet).
    const learnt = sent.filter((delta) => delta.at >= 11_000);
    expect(learnt).toHaveLength(5);
    for (const [i, delta] of learnt.entries()) {
      expect(delta.at).toBe(11_000 + i * 1000 + 40);
      expect(delta.hosts).toHaveLength(32);
    }
  });

  it("waits no longer than the bounded wait for a host that stopped, and not at all once it has missed a reading", () => {
    const pacer = new DeltaPacer({ maxHoldMs: 100 });
    const arrivals = seconds(10, 6, [5, 10]).filter((a) => !(a.host === "h1" && a.sampledAt >= 12_000));
    const sent = play(pacer, arrivals, 25, 10_000, 16_000);
    // Second 12: h1 is due and does not come, so h0's reading waits for the wait's end (the next poll after 100 ms).
    const second12 = sent.find((delta) => delta.at >= 12_000 && delta.at < 13_000)!;
    expect(second12.hosts).toEqual(["h0"]);
    expect(second12.at - 12_005).toBeGreaterThanOrEqual(100);
    expect(second12.at - 12_005).toBeLessThanOrEqual(100 + 25);
    // From second 13 on h1 has missed a reading: h0 goes at once again.
    expect(sent.filter((delta) => delta.at >= 13_000).map((delta) => delta.at)).toEqual([13_005, 14_005, 15_005]);
  });

  it("does not wait for hosts on another phase of the second", () => {
    const pacer = new DeltaPacer({ maxHoldMs: 100 });
    // h0 samples on the whole second, h1 half a second later: each goes alone, at once.
    const arrivals = [
      ...seconds(10, 4, [4]),
      ...seconds(10, 4, [4]).map((a) => ({ host: "h1", sampledAt: a.sampledAt + 500, at: a.at + 500 })),
    ];
    const sent = play(pacer, arrivals, 25, 10_000, 14_000);
    expect(sent.filter((delta) => delta.at >= 11_000).map((delta) => delta.at)).toEqual([11_004, 11_504, 12_004, 12_504, 13_004, 13_504]);
  });

  it("follows a host's interval: at 2 readings a second it is awaited every half second", () => {
    const pacer = new DeltaPacer({ maxHoldMs: 100 });
    const arrivals: Arrival[] = [];
    for (let i = 0; i < 8; i++) {
      arrivals.push({ host: "fast-a", sampledAt: 10_000 + i * 500, at: 10_000 + i * 500 + 2 });
      arrivals.push({ host: "fast-b", sampledAt: 10_000 + i * 500, at: 10_000 + i * 500 + 30 });
    }
    const sent = play(pacer, arrivals, 25, 10_000, 14_000);
    // Once the interval is known (after the second reading), both go together when the later one comes.
    expect(sent.filter((delta) => delta.at >= 11_000).map((delta) => [delta.at, delta.hosts.length])).toEqual(
      [11_030, 11_530, 12_030, 12_530, 13_030, 13_530].map((at) => [at, 2]),
    );
  });

  it("sends a long burst in parts, none held longer than the bounded wait", () => {
    const pacer = new DeltaPacer({ maxHoldMs: 100 });
    // 500 hosts over 400 ms (a busy server at 4,000 GPUs).
    const delays = Array.from({ length: 500 }, (_, i) => (i * 400) / 500);
    const sent = play(pacer, seconds(10, 3, delays), 25, 10_000, 13_000).filter((delta) => delta.at >= 11_000 && delta.at < 12_000);
    let previous = 11_000;
    for (const delta of sent) {
      expect(delta.at - previous).toBeLessThanOrEqual(100 + 25);
      previous = delta.at;
    }
    expect(sent.length).toBeLessThanOrEqual(5);
    expect(sent.reduce((sum, delta) => sum + delta.hosts.length, 0)).toBe(500);
  });

  it("ignores replayed readings for the cadence, holds a change at least the minimum hold, and sends other changes when no reading is due", () => {
    const pacer = new DeltaPacer({ maxHoldMs: 100, minHoldMs: 50 });
    pacer.arrived("h0", 10_000, 10_002);
    expect(pacer.arrived("h0", 9_000, 10_003)).toBe(false);
    expect(pacer.due(1, 10_003)).toBe(false);
    expect(pacer.due(1, 10_053)).toBe(true);
    pacer.sent();
    // Half a second later no host is due: a change of another kind (a tick's GPU states) waits only the minimum hold.
    expect(pacer.due(1, 10_500)).toBe(false);
    expect(pacer.due(1, 10_550)).toBe(true);
    pacer.sent();
    expect(pacer.due(0, 10_600)).toBe(false);
  });

  it("names when a waiting round falls due by the clock, so that the endpoint sets a timer instead of polling", () => {
    const pacer = new DeltaPacer({ maxHoldMs: 100 });
    expect(pacer.wakeAt()).toBeNull();
    // Two hosts learnt over two seconds, each second's pair sent when the second one comes.
    for (const second of [10_000, 11_000]) {
      pacer.arrived("h0", second, second + 5);
      pacer.due(1, second + 5);
      pacer.arrived("h1", second, second + 10);
      expect(pacer.due(2, second + 10)).toBe(true);
      pacer.sent();
    }
    // Second 12: h0 comes, h1 is awaited; the round falls due at the end of the bounded wait.
    expect(pacer.arrived("h0", 12_000, 12_005)).toBe(true);
    expect(pacer.due(1, 12_005)).toBe(false);
    expect(pacer.wakeAt()).toBe(12_105);
    expect(pacer.due(1, 12_104)).toBe(false);
    expect(pacer.due(1, 12_105)).toBe(true);
    pacer.sent();
    expect(pacer.wakeAt()).toBeNull();
  });

  it("wakes at the minimum hold when no host is awaited", () => {
    const pacer = new DeltaPacer({ maxHoldMs: 100, minHoldMs: 50 });
    pacer.arrived("h0", 10_000, 10_002);
    expect(pacer.due(1, 10_002)).toBe(false);
    expect(pacer.wakeAt()).toBe(10_052);
    expect(pacer.due(1, 10_052)).toBe(true);
  });
});
