/**
 * Seeded randomness for the simulated fleet. Every value is a hash of its
 * inputs rather than a draw from a stateful generator, so any reading can be
 * computed for any instant without replaying the past: the same seed, host,
 * GPU and time always give the same number, and two agents (or a test and the
 * server) agree without sharing state.
 */

export type HashPart = string | number;

/** 32-bit hash of the parts; ("ab", "c") and ("a", "bc") hash differently. */
export function hashOf(...parts: readonly HashPart[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    if (typeof part === "number" && Number.isSafeInteger(part)) {
      // Keys are mostly numbers (seeds, hashes, window indices, timestamps);
      // mixing their two 32-bit words skips a string conversion per part.
      h = mixWord(h, part >>> 0);
      h = mixWord(h, Math.floor(part / 0x1_0000_0000) | 0);
      continue;
    }
    const text = String(part);
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h = mixWord(h, text.length);
  }
  // The murmur3 finalizer spreads the last inputs over all bits, so that
  // consecutive timestamps give unrelated values.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** One round of murmur3's block mixing. */
function mixWord(h: number, word: number): number {
  let k = Math.imul(word, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** Uniform in [0, 1). */
export function unitOf(...parts: readonly HashPart[]): number {
  return hashOf(...parts) / 0x1_0000_0000;
}

/** Uniform in [min, max). */
export function between(min: number, max: number, ...parts: readonly HashPart[]): number {
  return min + (max - min) * unitOf(...parts);
}

/** Uniform integer in [min, max]. */
export function intBetween(min: number, max: number, ...parts: readonly HashPart[]): number {
  return min + (hashOf(...parts) % (max - min + 1));
}

/**
 * A duration in [minMs, maxMs] rounded to whole seconds, because process
 * start times read from /proc never carry milliseconds worth showing.
 */
export function secondsBetween(minMs: number, maxMs: number, ...parts: readonly HashPart[]): number {
  return intBetween(Math.ceil(minMs / 1000), Math.floor(maxMs / 1000), ...parts) * 1000;
}

export function pickOf<T>(items: readonly T[], ...parts: readonly HashPart[]): T {
  return items[hashOf(...parts) % items.length]!;
}

/** Lower-case hex of the given length, as in GPU UUIDs and container ids. */
export function hexOf(length: number, ...parts: readonly HashPart[]): string {
  let out = "";
  for (let chunk = 0; out.length < length; chunk++) {
    out += hashOf(...parts, "hex", chunk).toString(16).padStart(8, "0");
  }
  return out.slice(0, length);
}

/**
 * Value noise in [0, 1): hashed points every `periodMs`, eased between, so a
 * chart of it wanders instead of flickering sample to sample.
 */
export function smoothNoise(periodMs: number, t: number, ...parts: readonly HashPart[]): number {
  const x = t / periodMs;
  const i = Math.floor(x);
  const f = x - i;
  const eased = f * f * (3 - 2 * f);
  const a = unitOf(...parts, i);
  const b = unitOf(...parts, i + 1);
  return a + (b - a) * eased;
}

/** Per-second jitter in [-1, 1): what changes between two 1 Hz samples. */
export function jitterOf(t: number, ...parts: readonly HashPart[]): number {
  return unitOf(...parts, Math.floor(t / 1000)) * 2 - 1;
}

export interface TimeWindow {
  /** Which window since the seeded origin; new index, new job. */
  index: number;
  start: number;
  end: number;
}

/**
 * The fixed-length window containing `t`, shifted by a seeded offset so that
 * slots with the same length do not all change phase at the same instant.
 * Schedules are built inside windows because a window can be located from `t`
 * alone; a chain of variable-length phases would have to be replayed from
 * some origin on every reading.
 */
export function windowAt(t: number, lengthMs: number, ...parts: readonly HashPart[]): TimeWindow {
  const offset = secondsBetween(0, lengthMs, ...parts, "offset") % lengthMs;
  const index = Math.floor((t - offset) / lengthMs);
  const start = offset + index * lengthMs;
  return { index, start, end: start + lengthMs };
}
