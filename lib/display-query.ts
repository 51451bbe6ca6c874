import * as z from "zod";

/**
 * The wall display's address: `/display?token=gpd_disp_…&hosts=a,b&rotate=10&layout=overview`.
 * Parsed on the server (the page decides who may watch) and handed to the
 * client as plain values.
 */

export const DEFAULT_ROTATE_SECONDS = 10;
const MAX_HOST_NAMES = 64;

/** Any non-empty text: a token that is too long or malformed must read "invalid", not "missing". */
const tokenSchema = z.string().trim().min(1).max(1000);
const hostsSchema = z.string().max(4000);
/** Seconds per page when the fleet needs more than one screen. */
const rotateSchema = z.coerce.number().int().min(3).max(600);

/**
 * What the wall draws: "tiles", a tile per unit with its load and booker
 * (paged when the fleet needs more than one screen), or "overview", every
 * unit as one small cell coloured by state, never paged.
 */
export const DISPLAY_LAYOUTS = ["tiles", "overview"] as const;
export type DisplayLayout = (typeof DISPLAY_LAYOUTS)[number];
const layoutSchema = z.enum(DISPLAY_LAYOUTS);

export interface DisplayQuery {
  /** Null when the address has no token (a signed-in person's browser). */
  token: string | null;
  /** Host names to show, or null for the whole fleet. */
  hosts: string[] | null;
  rotateSeconds: number;
  layout: DisplayLayout;
}

/** Each field on its own: a wall screen with a typo in `rotate` still shows the fleet, with the default. */
function field<T>(schema: z.ZodType<T>, value: string | string[] | undefined): T | undefined {
  const result = schema.safeParse(Array.isArray(value) ? value[0] : value);
  return result.success ? result.data : undefined;
}

/** The address a wall screen opens; the tiles layout, the default, is not spelled out. */
export function displayAddress(origin: string, token: string, layout: DisplayLayout = "tiles"): string {
  const query = new URLSearchParams({ token });
  if (layout !== "tiles") query.set("layout", layout);
  return `${origin}/display?${query}`;
}

export function parseDisplayQuery(params: Record<string, string | string[] | undefined>): DisplayQuery {
  const hosts = (field(hostsSchema, params.hosts) ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name.length > 0 && name.length <= 253);
  const unique = [...new Set(hosts)].slice(0, MAX_HOST_NAMES);
  return {
    token: field(tokenSchema, params.token) ?? null,
    hosts: unique.length > 0 ? unique : null,
    rotateSeconds: field(rotateSchema, params.rotate) ?? DEFAULT_ROTATE_SECONDS,
    // An unknown layout shows the tiles: a wall with a typo still shows the fleet.
    layout: field(layoutSchema, typeof params.layout === "string" ? params.layout.trim().toLowerCase() : params.layout) ?? "tiles",
  };
}
