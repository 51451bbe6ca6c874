/**
 * The one palette for everything that gets a colour by who or what it is:
 * people (schedule bars, week blocks, the GPU page's bookedBy dot) and chart
 * series (usage by host or by model). Sixteen hues 22.5° apart, visited in
 * an order that puts far-apart hues next to each other, on two lightness
 * tiers, each with a light-mode and a dark-mode shade that keep dark text
 * readable (oklch L ≥ 0.56).
 *
 * A colour follows from the key (a person's id, a series' key), never from
 * a position in a list: the same person or host keeps its colour from page
 * to page and between a chart's views. Where two keys on one surface would
 * share a slot, the later one (in key order) takes the next free slot, so
 * that up to sixteen people or series on a surface all differ.
 */

export const PALETTE_SIZE = 16;

/** Slot i's hue: steps of 7 × 22.5° (7 is prime to 16), so neighbouring slots are far apart on the wheel. */
function hueOf(slot: number): number {
  return ((slot * 7) % PALETTE_SIZE) * 22.5 + 10;
}

export interface PaletteColour {
  slot: number;
  /** Fill in light mode (dark text on it). */
  light: string;
  /** Fill in dark mode (dark text on it). */
  dark: string;
  /** Lines and areas of charts, on either background. */
  chart: string;
}

export function paletteColour(slot: number): PaletteColour {
  const s = ((slot % PALETTE_SIZE) + PALETTE_SIZE) % PALETTE_SIZE;
  const hue = hueOf(s);
  const upper = s % 2 === 0;
  return {
    slot: s,
    light: `oklch(${upper ? 0.86 : 0.76} 0.11 ${hue})`,
    dark: `oklch(${upper ? 0.72 : 0.6} 0.13 ${hue})`,
    chart: `oklch(${upper ? 0.7 : 0.58} 0.16 ${hue})`,
  };
}

function hashKey(key: string): number {
  // FNV-1a: cheap, and spreads short ids well.
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The slot a key prefers: the same everywhere. */
export function preferredSlot(key: string): number {
  return hashKey(key) % PALETTE_SIZE;
}

/**
 * Slots for the keys shown together: each its preferred slot, or the next
 * free one where an earlier key (in sorted order) has it. The answer for a
 * key depends only on the set of keys, not on their order.
 */
export function assignSlots(keys: Iterable<string>): Map<string, number> {
  const unique = [...new Set(keys)].sort();
  const taken = new Set<number>();
  const slots = new Map<string, number>();
  // Keys that can have their own preference first, so that a newcomer never moves them.
  const rest: string[] = [];
  for (const key of unique) {
    const slot = preferredSlot(key);
    if (taken.has(slot)) rest.push(key);
    else {
      taken.add(slot);
      slots.set(key, slot);
    }
  }
  for (const key of rest) {
    let slot = preferredSlot(key);
    for (let step = 0; step < PALETTE_SIZE && taken.has(slot); step += 1) slot = (slot + 1) % PALETTE_SIZE;
    taken.add(slot);
    slots.set(key, slot);
  }
  return slots;
}

/** A palette for a surface: the colour of each key among `keys` (a key not among them gets its preferred slot). */
export function paletteFor(keys: Iterable<string>): (key: string) => PaletteColour {
  const slots = assignSlots(keys);
  return (key) => paletteColour(slots.get(key) ?? preferredSlot(key));
}

/**
 * Inline style for a person's (or series') fill: the CSS variables that
 * `PALETTE_FILL_CLASS` reads, light and dark.
 */
export function paletteStyle(colour: PaletteColour): Record<"--pal-light" | "--pal-dark", string> {
  return { "--pal-light": colour.light, "--pal-dark": colour.dark };
}

/** The classes that paint `paletteStyle`'s colour (Tailwind sees them here, in full). */
export const PALETTE_FILL_CLASS = "bg-[var(--pal-light)] dark:bg-[var(--pal-dark)]";
