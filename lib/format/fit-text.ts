/**
 * Fitting one line of text into a width, in the browser: the largest font
 * size between `maxPx` and `minPx` at which the text fits, and where even
 * `minPx` is too wide, the text shortened in the middle ("gpu-node-…-rack-17"),
 * which keeps both ends people tell hosts apart by. Widths come from a
 * canvas with the page's own font, so they match what the browser draws.
 */

export interface FitOptions {
  /** CSS font-weight, e.g. 700. */
  weight: number;
  /** CSS font-family of the element the text goes into. */
  family: string;
  maxPx: number;
  minPx: number;
}

export interface FittedLine {
  text: string;
  fontPx: number;
  /** The text was shortened: show the whole of it elsewhere (a title, an aria-label). */
  shortened: boolean;
}

let context: CanvasRenderingContext2D | null = null;

/** The width of `text` drawn at `px` in the given weight and family (the browser's own canvas; an estimate without one). */
export function measureText(text: string, px: number, { weight, family }: Pick<FitOptions, "weight" | "family">): number {
  if (typeof document !== "undefined") context ??= document.createElement("canvas").getContext("2d");
  if (!context) return text.length * px * 0.62;
  context.font = `${weight} ${px}px ${family}`;
  return context.measureText(text).width;
}

/** Shortens `text` in the middle until `fits` accepts it; pure, so that it can be tested with any measure. */
export function shortenMiddle(text: string, fits: (candidate: string) => boolean): string {
  if (fits(text)) return text;
  const chars = [...text];
  for (let keep = chars.length - 1; keep >= 2; keep--) {
    const head = Math.ceil(keep / 2);
    const candidate = `${chars.slice(0, head).join("")}…${chars.slice(chars.length - (keep - head)).join("")}`;
    if (fits(candidate)) return candidate;
  }
  return `${chars[0] ?? ""}…`;
}

/**
 * The longest run of whole leading words of `text` that `fits` ("Lin Wei
 * Zhang" → "Lin Wei"), or null when not even the first word does: a label is
 * never cut inside a word. Pure, so that it can be tested with any measure.
 */
export function keepWholeWords(text: string, fits: (candidate: string) => boolean): string | null {
  const words = text.trim().split(/\s+/);
  for (let count = words.length; count >= 1; count--) {
    const candidate = words.slice(0, count).join(" ");
    if (fits(candidate)) return candidate;
  }
  return null;
}

/** The line at the largest size that fits `widthPx`, else shortened at the smallest size. */
export function fitLine(text: string, widthPx: number, options: FitOptions): FittedLine {
  // A pixel of slack: canvas and layout round differently.
  const room = widthPx - 1;
  const natural = measureText(text, options.maxPx, options);
  if (natural <= room) return { text, fontPx: options.maxPx, shortened: false };
  const scaled = Math.floor(((options.maxPx * room) / natural) * 10) / 10;
  if (scaled >= options.minPx && measureText(text, scaled, options) <= room) return { text, fontPx: scaled, shortened: false };
  const short = shortenMiddle(text, (candidate) => measureText(candidate, options.minPx, options) <= room);
  return { text: short, fontPx: options.minPx, shortened: short !== text };
}
