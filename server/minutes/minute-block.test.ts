import { describe, expect, it } from "vitest";
import { decodeMinuteBlock, decodeMinuteColumns, encodeMinuteBlock, indexStrings, isBusy, isSimulated, MinuteBlockError } from "@/server/minutes/minute-block";
import { MINUTE_MS, type MinuteRow } from "@/server/minutes/minute-row";

const HOUR = Date.UTC(2026, 10, 30, 10, 0, 0);
const GPU = "GPU-00000000-0000-0000-0000-000000000001";

function row(offset: number, overrides: Partial<MinuteRow> = {}): MinuteRow {
  return {
    gpuUuid: GPU,
    minute: new Date(HOUR + offset * MINUTE_MS),
    hostId: "host-cm0000000000000000000001",
    samples: 60,
    utilAvg: 37.5,
    utilMax: 80,
    memUsedAvg: 40123.25,
    memUsedMax: 40200,
    memTotal: 81559,
    powerAvg: 301.5,
    tempAvg: 51.25,
    tempMax: 55,
    bookedByUserId: "user-ann",
    runnerUserId: "user-bob",
    busy: true,
    simulated: false,
    ...overrides,
  };
}

const roundTrip = (rows: MinuteRow[]) => decodeMinuteBlock(GPU, HOUR, encodeMinuteBlock(HOUR, rows));

describe("minute blocks", () => {
  it("give back a full hour as it went in, in minute order", () => {
    const rows = Array.from({ length: 60 }, (_, i) => row(59 - i, { utilAvg: i, samples: i + 1, busy: i % 2 === 0, simulated: i % 3 === 0, bookedByUserId: i < 30 ? "user-ann" : "user-cy" }));
    expect(roundTrip(rows)).toEqual([...rows].reverse());
  });

  it("keep one minute, and nulls as nulls (an absent runner reads back null)", () => {
    const nulls = row(17, { utilAvg: null, utilMax: null, memUsedAvg: null, memUsedMax: null, memTotal: null, powerAvg: null, tempAvg: null, tempMax: null, bookedByUserId: null, runnerUserId: undefined, busy: false });
    expect(roundTrip([nulls])).toEqual([{ ...nulls, runnerUserId: null }]);
  });

  it("keep measures to Float32's seven significant digits", () => {
    const [back] = roundTrip([row(0, { utilAvg: 100 / 3, powerAvg: 123.456789 })]);
    expect(back!.utilAvg).toBeCloseTo(100 / 3, 5);
    expect(back!.powerAvg).toBeCloseTo(123.456789, 4);
    expect(back!.memTotal).toBe(81559);
  });

  it("read as columns (the usage sums) what they read as rows, a block of long ids too", () => {
    const asColumns = (rows: MinuteRow[]) => {
      const c = decodeMinuteColumns(GPU, HOUR, encodeMinuteBlock(HOUR, rows));
      return [...c.offsets].map((offset, i) => ({
        minute: new Date(HOUR + offset * MINUTE_MS),
        utilAvg: Number.isNaN(c.utilAvg[i]!) ? null : c.utilAvg[i],
        hostId: c.strings[c.host[i]!],
        bookedByUserId: c.strings[c.booker[i]!],
        runnerUserId: c.strings[c.runner[i]!],
        busy: isBusy(c.flags[i]!),
        simulated: isSimulated(c.flags[i]!),
      }));
    };
    const asRows = (rows: MinuteRow[]) => decodeMinuteBlock(GPU, HOUR, encodeMinuteBlock(HOUR, rows)).map(({ minute, utilAvg, hostId, bookedByUserId, runnerUserId, busy, simulated }) => ({ minute, utilAvg, hostId, bookedByUserId, runnerUserId, busy, simulated }));
    // Ids of odd lengths put the utilization column at an odd byte; 120 long ones inflate past one buffer of zlib's output (4 KiB).
    const short = Array.from({ length: 60 }, (_, i) => row(i, { utilAvg: i % 9 === 0 ? null : i * 1.7, hostId: "h1", bookedByUserId: i % 4 === 0 ? null : "abc", busy: i % 2 === 0, simulated: i % 5 === 0 }));
    const long = Array.from({ length: 60 }, (_, i) => row(i, { utilAvg: 99.5 - i, bookedByUserId: `booker-${i}-${"x".repeat(90)}`, runnerUserId: `runner-${i}-${"y".repeat(90)}`, busy: i % 3 === 0 }));
    for (const rows of [short, long, [row(7, { utilAvg: 12.25 })]]) {
      expect(asColumns(rows)).toEqual(asRows(rows));
      expect(asColumns(rows).map((minute) => minute.utilAvg)).toEqual(rows.map((minute) => (minute.utilAvg === null ? null : Math.fround(minute.utilAvg))));
    }
  });

  it("take far less room than the rows they replace", () => {
    const rows = Array.from({ length: 60 }, (_, i) => row(i, { utilAvg: 40 + (i % 7) * 3.5, memUsedAvg: 40000 + i * 11 }));
    expect(encodeMinuteBlock(HOUR, rows).length).toBeLessThan(60 * 40);
  });

  it("refuse what they cannot hold", () => {
    expect(() => encodeMinuteBlock(HOUR, [row(60)])).toThrow(/not a whole minute of the hour/);
    expect(() => encodeMinuteBlock(HOUR, [row(3), row(3)])).toThrow(/given twice/);
    expect(() => encodeMinuteBlock(HOUR, [row(1), row(2, { gpuUuid: "GPU-other" })])).toThrow(/one GPU/);
    expect(() => encodeMinuteBlock(HOUR, [row(1, { samples: 70_000 })])).toThrow(/samples/);
    expect(() => indexStrings(Array.from({ length: 256 }, (_, i) => `user-${i}`))).toThrow(/at most 255 ids/);
    expect(indexStrings(Array.from({ length: 255 }, (_, i) => `user-${i}`)).size).toBe(255);
    expect(() => encodeMinuteBlock(HOUR, [row(1, { runnerUserId: "x".repeat(256) })])).toThrow(/at most 255 bytes/);
  });

  it("say clearly when a block is corrupt or of another version", () => {
    const good = encodeMinuteBlock(HOUR, [row(0), row(1)]);
    expect(() => decodeMinuteBlock(GPU, HOUR, Uint8Array.of(9, ...good.subarray(1)))).toThrow(MinuteBlockError);
    expect(() => decodeMinuteBlock(GPU, HOUR, Uint8Array.of(9, ...good.subarray(1)))).toThrow(/version 9, this gpudesk reads version 1/);
    expect(() => decodeMinuteBlock(GPU, HOUR, Uint8Array.of(1, 0xff, 0xff, 0xff))).toThrow(/corrupt minute block of GPU-/);
    expect(() => decodeMinuteBlock(GPU, HOUR, good.subarray(0, good.length - 3))).toThrow(MinuteBlockError);
    expect(() => decodeMinuteBlock(GPU, HOUR, new Uint8Array(0))).toThrow(/empty minute block/);
  });
});
