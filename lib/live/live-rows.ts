/**
 * Field-level change rows, the unit of the compact live deltas
 * (docs/live-protocol.md): a thing's changing values are a fixed tuple of
 * fields; a row says which of them changed since the last row with a bit
 * mask and carries only those values, in field order:
 *
 *   [mask, value of the lowest set bit, value of the next set bit, …]
 *
 * Deltas pack several rows into one flat array behind a slot number each,
 * so a reading whose utilization alone moved costs `slot,1,37`.
 * A tuple has at most 30 fields, so that a mask stays a small positive
 * integer (`1 << 31` is negative).
 */

import { sameJson } from "@/lib/live/same-json";

export type RowValue = number | string | boolean | null | RowValue[] | { [key: string]: unknown };

function sameValue(a: unknown, b: unknown): boolean {
  // Small arrays (per-process memory) are built fresh each reading: compared by content, as their JSON would be.
  return sameJson(a, b);
}

/**
 * Appends to `out` the row of what changed from `previous` to `next` (all
 * fields when there is no previous) and returns true, or appends nothing
 * and returns false when nothing changed and `always` is false.
 */
export function pushChangedRow(out: RowValue[], previous: readonly RowValue[] | undefined, next: readonly RowValue[], always = false): boolean {
  let mask = 0;
  for (let i = 0; i < next.length; i += 1) {
    if (!previous || !sameValue(previous[i], next[i])) mask |= 1 << i;
  }
  if (mask === 0 && !always) return false;
  out.push(mask);
  for (let i = 0; i < next.length; i += 1) {
    if (mask & (1 << i)) out.push(next[i]);
  }
  return true;
}

/**
 * Where the row that starts at `at` in `flat` ends (the index after its last
 * value), or -1 for a malformed row: a mask with more bits than fields, or
 * values missing.
 */
export function rowEnd(flat: readonly RowValue[], at: number, fieldCount: number): number {
  const mask = flat[at];
  if (typeof mask !== "number" || !Number.isInteger(mask) || mask < 0 || mask >= 2 ** fieldCount) return -1;
  let count = 0;
  for (let bits = mask; bits !== 0; bits &= bits - 1) count += 1;
  const end = at + 1 + count;
  return end > flat.length ? -1 : end;
}

/**
 * Reads the row that starts at `at` in `flat` into `target` (the held
 * tuple, changed in place) and returns where the next item begins. A
 * malformed row (a mask with more bits than fields, values missing) stops
 * the reading: returns -1.
 */
export function readRow(flat: readonly RowValue[], at: number, target: RowValue[], fieldCount: number): number {
  const end = rowEnd(flat, at, fieldCount);
  if (end < 0) return -1;
  const mask = flat[at] as number;
  let cursor = at + 1;
  for (let i = 0; i < fieldCount; i += 1) {
    if (mask & (1 << i)) target[i] = flat[cursor++];
  }
  return end;
}

/** A number rounded to what pages show (whole %, MiB, °C, W, MHz); null stays null. */
export function quantize(value: number | null | undefined): number | null {
  return value === null || value === undefined || !Number.isFinite(value) ? null : Math.round(value);
}
