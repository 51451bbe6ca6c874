import { describe, expect, it } from "vitest";
import { fitTileText, type TileTextInput } from "@/lib/format/display-tile-text";
import { keepWholeWords } from "@/lib/format/fit-text";

/** 10 px a character: easy to reason about. */
const perChar = (text: string) => [...text].length * 10;
const widths = { bold: perChar, state: perChar, semibold: perChar };
const base: TileTextInput = { unit: "0:1 1g.10gb", unitShort: "0:1", state: "BOOKED", who: "Lin Wei", when: "until 14:00", innerWidth: 400, gapPx: 10 };

describe("keepWholeWords", () => {
  it("keeps the leading words that fit, never part of one", () => {
    expect(keepWholeWords("Lin Wei Zhang", (text) => text.length <= 9)).toBe("Lin Wei");
    expect(keepWholeWords("Lin Wei Zhang", (text) => text.length <= 3)).toBe("Lin");
    expect(keepWholeWords("Lin Wei Zhang", (text) => text.length <= 2)).toBeNull();
  });
});

describe("fitTileText", () => {
  it("keeps everything where it fits", () => {
    expect(fitTileText(base, widths)).toEqual({ unit: "0:1 1g.10gb", who: "Lin Wei" });
  });

  it("drops a slice's profile before its state would be cut ('BOOK…')", () => {
    // "0:1 1g.10gb" (110) + gap (10) + "BOOKED" (60) = 180 > 150; "0:1" leaves room for the state.
    expect(fitTileText({ ...base, innerWidth: 150 }, widths).unit).toBe("0:1");
  });

  it("names a free slice's profile on its empty second line when the first has no room for it ('0:2' alone said nothing)", () => {
    const free = { ...base, unit: "0:2 1g.10gb", unitShort: "0:2", state: "FREE", who: "\u00a0", when: null, innerWidth: 130 };
    expect(fitTileText(free, widths)).toEqual({ unit: "0:2", who: "1g.10gb" });
    // Where the first line holds it, it stays there and the second line stays empty.
    expect(fitTileText({ ...free, innerWidth: 400 }, widths).unit).toBe("0:2 1g.10gb");
  });

  it("drops a booker's later names before cutting one ('Lin …'), then falls back to initials", () => {
    // "until 14:00" with its separator is 140 px.
    expect(fitTileText({ ...base, innerWidth: 140 + 60 }, widths).who).toBe("Lin");
    expect(fitTileText({ ...base, innerWidth: 140 + 25 }, widths).who).toBe("LW");
    expect(fitTileText({ ...base, innerWidth: 70, when: null }, widths).who).toBe("Lin Wei");
  });
});
