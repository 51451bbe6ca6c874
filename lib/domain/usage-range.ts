import * as z from "zod";

/**
 * The time ranges of the usage pages and the history API, shared by the
 * range picker (browser) and the routes (server): one schema, one meaning.
 */

export const RANGE_PRESETS = ["1h", "24h", "7d", "30d"] as const;
export type RangePreset = (typeof RANGE_PRESETS)[number];
export type RangeChoice = RangePreset | "custom";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** The longest custom range: a year of hourly rollups, plus slack for time zones. */
export const MAX_RANGE_MS = 400 * DAY_MS;

const UNIT_MS = { m: MINUTE_MS, h: HOUR_MS, d: DAY_MS, w: 7 * DAY_MS } as const;

/** "90m", "24h", "7d", "2w" → milliseconds; null for anything else. */
export function parseSpan(text: string): number | null {
  const match = /^(\d{1,5})\s*(m|h|d|w)$/.exec(text.trim());
  if (!match) return null;
  const value = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return value > 0 ? value : null;
}

export const PRESET_SPAN_MS: Record<RangePreset, number> = {
  "1h": HOUR_MS,
  "24h": DAY_MS,
  "7d": 7 * DAY_MS,
  "30d": 30 * DAY_MS,
};

export const PRESET_LABEL: Record<RangeChoice, string> = {
  "1h": "1 h",
  "24h": "24 h",
  "7d": "7 d",
  "30d": "30 d",
  custom: "Custom",
};

const isoTime = z.iso.datetime({ offset: true });

/**
 * `?range=24h`, or `?range=custom&from=…&to=…` (ISO times). A `from`/`to`
 * pair without `range` means custom too, so hand-written links work.
 */
export const rangeQuerySchema = z
  .object({
    range: z.enum([...RANGE_PRESETS, "custom"]).optional(),
    from: isoTime.optional(),
    to: isoTime.optional(),
  })
  .transform((query, ctx) => {
    const choice: RangeChoice = query.range ?? (query.from || query.to ? "custom" : "24h");
    if (choice !== "custom") return { choice } as const;
    if (!query.from || !query.to) {
      ctx.addIssue({ code: "custom", path: [query.from ? "to" : "from"], message: "is required for a custom range" });
      return z.NEVER;
    }
    const fromMs = Date.parse(query.from);
    const toMs = Date.parse(query.to);
    if (toMs <= fromMs) {
      ctx.addIssue({ code: "custom", path: ["to"], message: "must be after from" });
      return z.NEVER;
    }
    if (toMs - fromMs > MAX_RANGE_MS) {
      ctx.addIssue({ code: "custom", path: ["from"], message: "the range is at most 400 days" });
      return z.NEVER;
    }
    return { choice, fromMs, toMs } as const;
  });

export type RangeQuery = z.output<typeof rangeQuerySchema>;

export interface TimeRange {
  choice: RangeChoice;
  fromMs: number;
  toMs: number;
}

/** A preset ends now; a custom range ends where it says (never in the future). */
export function resolveRange(query: RangeQuery, nowMs: number): TimeRange {
  if (query.choice === "custom") {
    // Nothing is recorded after now: cut a range that runs on into the future, unless it lies there entirely.
    const clipped = Math.min(query.toMs, nowMs);
    return { choice: "custom", fromMs: query.fromMs, toMs: clipped > query.fromMs ? clipped : query.toMs };
  }
  return { choice: query.choice, fromMs: nowMs - PRESET_SPAN_MS[query.choice], toMs: nowMs };
}

/** Turns a query string (URLSearchParams or a Next searchParams object) into the plain record the schema reads. */
export function queryRecord(source: URLSearchParams | Record<string, string | string[] | undefined>): Record<string, string> {
  const record: Record<string, string> = {};
  if (source instanceof URLSearchParams) {
    for (const [key, value] of source) record[key] = value;
    return record;
  }
  for (const [key, value] of Object.entries(source)) {
    if (typeof value === "string") record[key] = value;
    else if (Array.isArray(value) && value.length > 0) record[key] = value[0]!;
  }
  return record;
}

/** The query string of a range, for links and fetches. */
export function rangeSearch(range: { choice: RangeChoice; fromMs?: number; toMs?: number }): string {
  if (range.choice !== "custom") return `range=${range.choice}`;
  const params = new URLSearchParams({ range: "custom", from: new Date(range.fromMs ?? 0).toISOString(), to: new Date(range.toMs ?? 0).toISOString() });
  return params.toString();
}
