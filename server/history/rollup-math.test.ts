import { describe, expect, it } from "vitest";
import { addSample, mergeEntries, mergeMinuteRows, newMinuteEntry, toMinuteRow } from "@/server/history/rollup-math";
import { HOUR_MS, MINUTE_MS, type MinuteRow } from "@/server/minutes/minute-row";
import { rollupHour, rollupHours } from "@/server/history/hour-tally";
import { makeGpu } from "@/server/testing/factories";

const T0 = Date.UTC(2026, 10, 30, 10, 0, 0);

function minuteOf(samples: { util: number | null; mem?: number; power?: number | null; temp?: number }[], busy = false) {
  const entry = newMinuteEntry("GPU-a", T0, "host-1", false);
  for (const s of samples) {
    addSample(entry, makeGpu({ uuid: "GPU-a", utilizationGpuPct: s.util, memoryUsedMiB: s.mem ?? 1000, powerDrawW: s.power === undefined ? 300 : s.power, temperatureC: s.temp ?? 50 }), busy);
  }
  return entry;
}

function row(overrides: Partial<MinuteRow>): MinuteRow {
  return {
    gpuUuid: "GPU-a",
    minute: new Date(T0),
    hostId: "host-1",
    samples: 60,
    utilAvg: 50,
    utilMax: 80,
    memUsedAvg: 1000,
    memUsedMax: 2000,
    memTotal: 81559,
    powerAvg: 300,
    tempAvg: 50,
    tempMax: 55,
    bookedByUserId: null,
    busy: false,
    simulated: false,
    ...overrides,
  };
}

describe("a minute from samples", () => {
  it("averages and peaks every metric over the samples it has", () => {
    const minute = toMinuteRow(minuteOf([{ util: 10, mem: 100, temp: 40 }, { util: 30, mem: 300, temp: 60 }, { util: 80, mem: 200, temp: 50 }]), null);
    expect(minute.samples).toBe(3);
    expect(minute.utilAvg).toBe(40);
    expect(minute.utilMax).toBe(80);
    expect(minute.memUsedAvg).toBe(200);
    expect(minute.memUsedMax).toBe(300);
    expect(minute.tempAvg).toBe(50);
    expect(minute.tempMax).toBe(60);
    expect(minute.minute.getTime()).toBe(T0);
  });

  it("leaves a metric the GPU does not report as null, not 0", () => {
    const minute = toMinuteRow(minuteOf([{ util: null, power: null }, { util: null, power: null }]), null);
    expect(minute.utilAvg).toBeNull();
    expect(minute.utilMax).toBeNull();
    expect(minute.powerAvg).toBeNull();
    expect(minute.samples).toBe(2);
  });

  it("is busy when any sample had a process", () => {
    const entry = minuteOf([{ util: 0 }]);
    addSample(entry, makeGpu({ uuid: "GPU-a" }), true);
    addSample(entry, makeGpu({ uuid: "GPU-a" }), false);
    expect(toMinuteRow(entry, null).busy).toBe(true);
  });
});

describe("a minute written in two parts", () => {
  it("merges to the average of all its samples, weighted by sample counts", () => {
    // 45 samples at 20 % before the flush, 15 samples at 100 % after it: 40 % over the minute.
    const first = minuteOf(Array.from({ length: 45 }, () => ({ util: 20, mem: 1000 })));
    const second = minuteOf(Array.from({ length: 15 }, () => ({ util: 100, mem: 5000 })));
    const merged = mergeMinuteRows(toMinuteRow(first, null), toMinuteRow(second, "user-1"));
    expect(merged.samples).toBe(60);
    expect(merged.utilAvg).toBeCloseTo(40, 10);
    expect(merged.utilMax).toBe(100);
    expect(merged.memUsedAvg).toBeCloseTo(2000, 10);
    expect(merged.memUsedMax).toBe(5000);
    expect(merged.bookedByUserId).toBe("user-1");
  });

  it("gives the same row whether merged as stored rows or as accumulations", () => {
    const a = minuteOf([{ util: 10 }, { util: 20 }, { util: 90 }]);
    const b = minuteOf([{ util: 50 }]);
    const viaRows = mergeMinuteRows(toMinuteRow(a, null), toMinuteRow(b, null));
    mergeEntries(a, b);
    const viaEntries = toMinuteRow(a, null);
    expect(viaRows.utilAvg).toBeCloseTo(viaEntries.utilAvg!, 10);
    expect(viaRows.samples).toBe(viaEntries.samples);
    expect(viaRows.utilMax).toBe(viaEntries.utilMax);
  });

  it("keeps a metric known on one side only, and keeps the earlier bookedBy when the later part has none", () => {
    const merged = mergeMinuteRows(row({ powerAvg: null, bookedByUserId: "user-1" }), row({ powerAvg: 250, bookedByUserId: null }));
    expect(merged.powerAvg).toBe(250);
    expect(merged.bookedByUserId).toBe("user-1");
  });

  it("is busy if either part was, and simulated only if both were", () => {
    expect(mergeMinuteRows(row({ busy: true }), row({ busy: false })).busy).toBe(true);
    expect(mergeMinuteRows(row({ simulated: true }), row({ simulated: false })).simulated).toBe(false);
  });
});

describe("an hour from its minutes", () => {
  const minutes = (count: number, make: (i: number) => Partial<MinuteRow>) =>
    Array.from({ length: count }, (_, i) => row({ minute: new Date(T0 + i * MINUTE_MS), ...make(i) }));

  it("counts the minutes with readings and averages over them only: an offline stretch is a gap, not zeros", () => {
    // 20 minutes at 90 %, then the agent went silent for 40 minutes: no rows.
    const hour = rollupHour(minutes(20, () => ({ utilAvg: 90, utilMax: 95 })), T0);
    expect(hour.samples).toBe(20);
    expect(hour.utilAvg).toBe(90);
    expect(hour.utilMax).toBe(95);
  });

  it("counts busy minutes and gives the hour to whoever held most of it", () => {
    const hour = rollupHour(
      minutes(60, (i) => ({ busy: i % 2 === 0, bookedByUserId: i < 40 ? "user-1" : null })),
      T0,
    );
    expect(hour.busyMinutes).toBe(30);
    expect(hour.bookedByUserId).toBe("user-1");
    const shortBooking = rollupHour(minutes(60, (i) => ({ bookedByUserId: i < 10 ? "user-1" : null })), T0);
    expect(shortBooking.bookedByUserId).toBeNull();
  });

  it("sums to the same GPU-time as its minutes", () => {
    const rows = minutes(45, (i) => ({ utilAvg: i % 3 === 0 ? 100 : 10 }));
    const hour = rollupHour(rows, T0);
    const fromMinutes = rows.reduce((sum, m) => sum + m.utilAvg!, 0);
    expect(hour.utilAvg! * hour.samples).toBeCloseTo(fromMinutes, 8);
  });

  it("groups minutes by GPU and hour", () => {
    const rows = [
      row({ minute: new Date(T0) }),
      row({ minute: new Date(T0 + HOUR_MS - MINUTE_MS) }),
      row({ minute: new Date(T0 + HOUR_MS) }),
      row({ gpuUuid: "GPU-b", minute: new Date(T0) }),
    ];
    const hours = rollupHours(rows).map((h) => `${h.gpuUuid}@${h.hour.getTime() - T0}:${h.samples}`).sort();
    expect(hours).toEqual([`GPU-a@0:2`, `GPU-a@${HOUR_MS}:1`, `GPU-b@0:1`]);
  });
});
