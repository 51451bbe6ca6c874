import { describe, expect, it } from "vitest";
import { SampleBuffer } from "@/host/agent/sample-buffer";

describe("SampleBuffer", () => {
  it("drops the oldest readings when full and counts them", () => {
    const buffer = new SampleBuffer<number>(3);
    for (const n of [1, 2, 3, 4, 5]) buffer.push(n);
    expect(buffer.peek(10)).toEqual([3, 4, 5]);
    expect(buffer.takeDropped()).toBe(2);
    expect(buffer.takeDropped()).toBe(0);
  });

  it("drops stale readings from the head and counts them, leaving the rest in order", () => {
    const buffer = new SampleBuffer<number>(10);
    for (const n of [1, 2, 3, 8, 2, 9]) buffer.push(n);
    buffer.dropStale((n) => n < 5);
    expect(buffer.peek(10)).toEqual([8, 2, 9]);
    expect(buffer.takeDropped()).toBe(3);
    buffer.dropStale(() => false);
    expect(buffer.size).toBe(3);
    expect(buffer.takeDropped()).toBe(0);
  });

  it("removes only acknowledged readings, even when the buffer overflowed during the send", () => {
    const buffer = new SampleBuffer<{ n: number }>(4);
    const items = [1, 2, 3, 4].map((n) => ({ n }));
    items.forEach((item) => buffer.push(item));
    const inFlight = buffer.peek(2);
    buffer.push({ n: 5 }); // evicts 1 while 1 and 2 are in flight
    buffer.remove(inFlight);
    expect(buffer.peek(10).map((item) => item.n)).toEqual([3, 4, 5]);
  });

  it("holds at least an hour of readings at 1 Hz by default in the agent", () => {
    const buffer = new SampleBuffer<number>(7200);
    for (let i = 0; i < 3600; i += 1) buffer.push(i);
    expect(buffer.size).toBe(3600);
    expect(buffer.takeDropped()).toBe(0);
  });
});
