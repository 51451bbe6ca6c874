import { keepWholeWords } from "@/lib/format/fit-text";
import { nameInitials } from "@/lib/format/person-name";

export interface TileTextInput {
  /** "GPU 3", or a slice's "0:1 1g.10gb". */
  unit: string;
  /** The unit without its profile ("0:1"), for a narrow tile; the same as `unit` for a whole GPU. */
  unitShort: string;
  /** The state as the tile writes it (upper case). */
  state: string;
  /** Who holds or runs it ("Lin Wei"), and until when ("until 14:00"), or a note. */
  who: string;
  when: string | null;
  /** Room inside the tile's padding and border, in px. */
  innerWidth: number;
  /** The gap between the two parts of a line, in px. */
  gapPx: number;
}

/** Widths at the tile's text size: bold for the unit and the state (its letter spacing included), semibold for the booker line. */
export interface TileTextWidths {
  bold: (text: string) => number;
  state: (text: string) => number;
  semibold: (text: string) => number;
}

/**
 * The words a tile has room for, never cut inside a word: the slice's profile
 * gives way before its state, a booker's later names before the first
 * ("Lin Wei" → "Lin"), and initials before a cut name. The state and the
 * time ("until 14:00") are always whole. A slice with nobody on it (a free
 * one, the tile read for "which size is free") writes its profile on the
 * empty second line rather than drop it.
 */
export function fitTileText(input: TileTextInput, width: TileTextWidths): { unit: string; who: string } {
  const stateWidth = width.state(input.state) + input.gapPx;
  const unit = width.bold(input.unit) + stateWidth <= input.innerWidth ? input.unit : input.unitShort;
  const room = input.innerWidth - (input.when ? width.semibold(`\u00a0· ${input.when}`) : 0);
  const fits = (candidate: string) => width.semibold(candidate) <= room;
  const profile = input.unit.slice(input.unitShort.length).trim();
  if (unit === input.unitShort && profile && !input.who.trim() && fits(profile)) return { unit, who: profile };
  const who = keepWholeWords(input.who, fits) ?? nameInitials(input.who);
  return { unit, who };
}

