import type { GpuState } from "@/lib/domain/gpu-availability";

/**
 * The one home of the state → colour rule, shared by the wall's tiles, its
 * legend, the fleet page's state filter and the fleet overview's cells, so
 * that a colour learnt on the wall means the same on a phone.
 *
 * Tiles are read from across a room and in a lit lab: full fills, each with
 * text at 4.5:1 or better. In use by the booking's person is a dark solid
 * blue; in use without a booking is a pale blue with dark hatching, so that
 * the two differ in lightness and pattern, not only in hue. Conflict carries
 * stripes too, so that it stands out without colour vision; every state is
 * also written on the tile.
 */
export const STATE_TILE_STYLES: Record<GpuState, { tile: string; muted: string; track: string }> = {
  free: { tile: "bg-emerald-700 text-white border-emerald-400", muted: "text-emerald-50", track: "bg-black/35" },
  booked_idle: { tile: "bg-amber-400 text-black border-amber-200", muted: "text-black", track: "bg-black/20" },
  booked_in_use: { tile: "bg-blue-700 text-white border-blue-400", muted: "text-blue-50", track: "bg-black/35" },
  unbooked_use: {
    tile: "bg-sky-200 text-black border-blue-800 border-dashed bg-[repeating-linear-gradient(45deg,transparent_0_10px,rgb(30_64_175/0.28)_10px_14px)]",
    muted: "text-black",
    track: "bg-black/20",
  },
  conflict: {
    tile: "bg-fuchsia-700 text-white border-white bg-[repeating-linear-gradient(135deg,transparent_0_14px,rgb(0_0_0/0.22)_14px_28px)]",
    muted: "text-fuchsia-50",
    track: "bg-black/40",
  },
  error: { tile: "bg-red-700 text-white border-red-300", muted: "text-red-50", track: "bg-black/35" },
  offline: { tile: "bg-zinc-900 text-zinc-200 border-zinc-500 border-dashed", muted: "text-zinc-300", track: "bg-white/10" },
  partitioned: { tile: "bg-slate-700 text-white border-slate-400", muted: "text-slate-100", track: "bg-black/35" },
};

/**
 * The tiles' colours in small (legend swatches, filter dots, overview
 * cells): the two kinds of "in use" differ here as on the tiles, by fill and
 * by a dashed edge.
 */
export const STATE_SWATCHES: Record<GpuState, string> = {
  free: "bg-emerald-600",
  booked_idle: "bg-amber-400",
  booked_in_use: "bg-blue-600",
  unbooked_use: "bg-sky-200 border-2 border-dashed border-blue-800",
  conflict: "bg-fuchsia-600",
  error: "bg-red-600",
  offline: "bg-zinc-600",
  partitioned: "bg-slate-600",
};
