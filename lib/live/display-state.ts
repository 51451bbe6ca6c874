import { countAvailability, type AvailabilityCounts, type GpuState } from "@/lib/domain/gpu-availability";
import type { DisplayGpu, DisplayHost } from "@/lib/live/live";

/**
 * What the wall display shows, built only from the display scope's fields:
 * per GPU its state (the one availability rule, lib/domain/gpu-availability.ts),
 * utilization, memory, temperature, and the booker's display name and end;
 * per host its name and whether it reports. Nothing here needs processes,
 * purposes or ids, so a screen on the reduced feed shows all of it. Plain
 * functions, tested without a page.
 */

/** One GPU and one host as the display scope sends them (lib/live/live.ts). */
export type DisplayFeedGpu = DisplayGpu;
export type DisplayFeedHost = DisplayHost;

/**
 * The words on a tile, read from across the room: short enough for the
 * narrowest tile. "In use" is the booker's; "Unbooked" is in use without a
 * booking, and its tile looks different too (see display-tile.tsx).
 */
export const DISPLAY_STATE_LABELS: Record<GpuState, string> = {
  free: "Free",
  // "Booked, idle" was cut to "BOOKED, ID…" on a narrow tile; the 0 % beside it says idle.
  booked_idle: "Booked",
  booked_in_use: "In use",
  unbooked_use: "Unbooked",
  conflict: "Conflict",
  error: "Error",
  offline: "Offline",
  // Never a tile: a split GPU is shown by its slices (lib/live/display-from-fleet.ts).
  partitioned: "Split",
};

export interface DisplayTile extends Omit<DisplayFeedGpu, "bookedByName" | "bookedUntil"> {
  /** "H100 80GB": what people call the card. */
  model: string;
  /** Who holds the GPU by booking, until when; null when nobody does. */
  bookedBy: { name: string; until: string } | null;
}

/**
 * "NVIDIA H100 80GB HBM3" → "H100 80GB", "NVIDIA A100-SXM4-40GB" → "A100 40GB",
 * "NVIDIA GeForce RTX 4090" → "RTX 4090": what people call the card, short
 * enough for a label read from across the room.
 */
export function shortModelName(name: string): string {
  const stripped = name.replace(/\b(NVIDIA|GeForce|Tesla)\b/gi, " ").trim();
  const tokens = stripped.split(/[\s-]+/).filter(Boolean);
  const memory = tokens.find((token) => /^\d+GB$/i.test(token)) ?? null;
  const kept = tokens.filter((token) => !/^(\d+GB|SXM\d*|PCIE|HBM\d*e?|NVL)$/i.test(token)).slice(0, 2);
  const base = kept.join(" ") || name.trim() || "GPU";
  return memory ? `${base} ${memory.toUpperCase()}` : base;
}

/**
 * What a host has, short enough for the label's narrow column: "8 × H100
 * 80GB", per model where a host mixes them, and a GPU split into MIG slices
 * once, with its slice count ("1 × H100 in 4 MIG slices"; the tiles name
 * each slice's profile). Counting slices per profile here made a label of
 * four lines that pushed the host's block past its row.
 */
export function hostInventoryText(tiles: Pick<DisplayTile, "index" | "model" | "slice">[]): string {
  const whole = new Map<string, number>();
  const split = new Map<string, { gpus: Set<number>; slices: number }>();
  for (const tile of tiles) {
    if (!tile.slice) {
      whole.set(tile.model, (whole.get(tile.model) ?? 0) + 1);
      continue;
    }
    // A slice's model is "H100 3g.40gb": its GPU's model is the part before the profile.
    const model = tile.model.slice(0, tile.model.length - tile.slice.profile.length).trim() || "GPU";
    const entry = split.get(model) ?? { gpus: new Set<number>(), slices: 0 };
    entry.gpus.add(tile.index);
    entry.slices += 1;
    split.set(model, entry);
  }
  return [
    ...[...whole].map(([model, count]) => `${count} × ${model}`),
    ...[...split].map(([model, { gpus, slices }]) => `${gpus.size} × ${model} in ${slices} MIG slices`),
  ].join(", ");
}

/**
 * One tile per GPU of these hosts, in host order then nvidia-smi index
 * order. A host that went silent shows its GPUs offline whatever they said
 * last: its values are old.
 */
export function displayTiles(hosts: DisplayFeedHost[], gpus: Record<string, DisplayFeedGpu>): Map<string, DisplayTile[]> {
  const tiles = new Map<string, DisplayTile[]>();
  for (const host of hosts) {
    const list: DisplayTile[] = [];
    for (const uuid of host.gpuUuids) {
      const gpu = gpus[uuid];
      if (!gpu) continue;
      const state: GpuState = host.online ? gpu.state : "offline";
      list.push({
        uuid,
        index: gpu.index,
        hostId: host.id,
        // A slice is named by its profile ("H100 1g.10gb"): the free-by-model line then counts slices by size.
        model: gpu.slice ? `${shortModelName(gpu.model).split(" ")[0]} ${gpu.slice.profile}` : shortModelName(gpu.model),
        state,
        utilizationPct: gpu.utilizationPct,
        memoryUsedMiB: gpu.memoryUsedMiB,
        memoryTotalMiB: gpu.memoryTotalMiB,
        temperatureC: gpu.temperatureC,
        bookedBy: gpu.bookedByName && gpu.bookedUntil ? { name: gpu.bookedByName, until: gpu.bookedUntil } : null,
        ...(gpu.unseen && host.online ? { unseen: true as const } : {}),
        ...(gpu.runnerName && host.online && state === "unbooked_use" ? { runnerName: gpu.runnerName } : {}),
        ...(gpu.slice ? { slice: gpu.slice } : {}),
        ...(gpu.slurm && host.online && state === "unbooked_use" ? { slurm: gpu.slurm } : {}),
      });
    }
    tiles.set(host.id, list);
  }
  return tiles;
}

export interface DisplaySummary {
  /** Free GPUs now per model, most free first; models with none free are listed with 0 so that "none left" shows. */
  freeByModel: { model: string; free: number; total: number }[];
  /** GPUs by state, counted with the one rule (free is `counts.free`). */
  counts: AvailabilityCounts;
}

export function summarizeTiles(tiles: Iterable<DisplayTile>): DisplaySummary {
  const all = [...tiles];
  const counts = countAvailability(all.map((tile) => tile.state));
  const models = new Map<string, DisplayTile[]>();
  for (const tile of all) models.set(tile.model, [...(models.get(tile.model) ?? []), tile]);
  const freeByModel = [...models.entries()]
    .map(([model, list]) => ({ model, free: countAvailability(list.map((tile) => tile.state)).free, total: list.length }))
    .sort((a, b) => b.free - a.free || a.model.localeCompare(b.model));
  return { freeByModel, counts };
}

/** The models the free-now strip has no room for, in one chip: "+3 more models (5 of 40 free)". */
export function hiddenModelsText(hidden: DisplaySummary["freeByModel"]): string {
  const free = hidden.reduce((sum, entry) => sum + entry.free, 0);
  const total = hidden.reduce((sum, entry) => sum + entry.total, 0);
  return `+${hidden.length} more model${hidden.length === 1 ? "" : "s"} (${free} of ${total} free)`;
}

/**
 * Hosts a `?hosts=a,b` filter names (case-insensitive), in fleet order, and
 * the names that matched nothing. No filter: every host.
 */
export function filterHosts<H extends { name: string }>(hosts: H[], names: string[] | null): { hosts: H[]; unknown: string[] } {
  if (!names || names.length === 0) return { hosts, unknown: [] };
  const wanted = new Set(names.map((name) => name.toLowerCase()));
  const shown = hosts.filter((host) => wanted.has(host.name.toLowerCase()));
  const known = new Set(shown.map((host) => host.name.toLowerCase()));
  return { hosts: shown, unknown: names.filter((name) => !known.has(name.toLowerCase())) };
}
