import { describe, expect, it } from "vitest";
import type { DisplayTile } from "@/lib/live/display-state";
import { sameTileProps, type DisplayTileProps } from "@/components/display/tile-props";

const tile = (overrides: Partial<DisplayTile> = {}): DisplayTile => ({
  uuid: "GPU-a",
  index: 0,
  hostId: "h1",
  model: "H100 80GB",
  state: "free",
  utilizationPct: 10,
  memoryUsedMiB: 1_000,
  memoryTotalMiB: 81_920,
  temperatureC: 40,
  bookedBy: null,
  ...overrides,
});

const typography = { utilization: 60, text: 20, padding: 8, gap: 4 };
const NOON = Date.parse("2026-12-01T12:00:00Z");

function props(overrides: Partial<DisplayTileProps> = {}): DisplayTileProps {
  return { tile: tile(), hostName: "node-a", width: 200, height: 150, typography, nowMs: NOON, ...overrides };
}

describe("sameTileProps", () => {
  it("skips a tile rebuilt with the same values, a new clock second and a new typography object", () => {
    expect(sameTileProps(props(), props({ tile: tile(), nowMs: NOON + 1_000, typography: { ...typography } }))).toBe(true);
  });

  it("redraws when a value it shows changed", () => {
    expect(sameTileProps(props(), props({ tile: tile({ utilizationPct: 11 }) }))).toBe(false);
    expect(sameTileProps(props(), props({ tile: tile({ state: "booked_in_use" }) }))).toBe(false);
    expect(sameTileProps(props(), props({ tile: tile({ memoryUsedMiB: 2_000 }) }))).toBe(false);
    expect(sameTileProps(props(), props({ tile: tile({ temperatureC: 41 }) }))).toBe(false);
    expect(sameTileProps(props(), props({ tile: tile({ bookedBy: { name: "Ada", until: "2026-12-01T14:00:00Z" } }) }))).toBe(false);
  });

  it("redraws when its size or type changed", () => {
    expect(sameTileProps(props(), props({ width: 201 }))).toBe(false);
    expect(sameTileProps(props(), props({ typography: { ...typography, text: 21 } }))).toBe(false);
    expect(sameTileProps(props(), props({ hostName: "node-b" }))).toBe(false);
  });

  it("redraws a held tile when the clock moves its until label, and only then", () => {
    const held = props({ tile: tile({ bookedBy: { name: "Ada", until: "2026-12-03T14:00:00Z" } }) });
    expect(sameTileProps(held, { ...held, nowMs: NOON + 1_000 })).toBe(true);
    // Ten days later the label reads as a date instead of a weekday.
    expect(sameTileProps(held, { ...held, nowMs: NOON - 10 * 86_400_000 })).toBe(false);
  });
});
