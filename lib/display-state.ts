import { attributedName, type GpuReconciliation, type GpuState } from "@/lib/attribution";
import type { LiveBooking, LiveGpu, LiveHost } from "@/lib/live";
import { bookingsOfGpu } from "@/lib/live-fleet-state";

/**
 * What the wall display says about each GPU: the server's reconciliation
 * where it sends one (it knows who a process belongs to better than a login
 * name does: reservation, Slurm job, container), else derived here from the
 * processes and the bookings. Plain functions, tested without a page.
 */

export type DisplayGpuState = "free" | "booked" | "in-use" | "conflict" | "error" | "offline";

export const DISPLAY_STATE_LABELS: Record<DisplayGpuState, string> = {
  free: "Free",
  booked: "Booked, idle",
  "in-use": "In use",
  conflict: "Conflict",
  error: "Error",
  offline: "Offline",
};

/** At or above this a GPU counts as used even when no process is visible (another container, another namespace). */
export const IN_USE_UTIL_PCT = 5;

export interface DisplayHolder {
  name: string;
  username: string;
  endsAt: string;
}

export interface DisplayTile {
  uuid: string;
  index: number;
  hostId: string;
  model: string;
  state: DisplayGpuState;
  utilizationPct: number | null;
  memoryUsedMiB: number | null;
  memoryTotalMiB: number | null;
  /** The active booking's holder; null when nobody holds the GPU now (or the server has no bookings). */
  holder: DisplayHolder | null;
  /** Who runs on the GPU besides the holder (on a conflict: the intruders), in order of appearance, without repeats. */
  otherUsers: string[];
  /** Why the state is "error" ("2 uncorrected ECC errors"); null otherwise. */
  problem: string | null;
  /** The next booking of a GPU nobody holds now. */
  next: { name: string; startsAt: string } | null;
}

/** The state colour of one GPU. Offline wins (its values are old), then errors, then who uses it. */
export function gpuDisplayState(gpu: LiveGpu, hostOnline: boolean, active: LiveBooking | null): DisplayGpuState {
  if (!hostOnline) return "offline";
  if (gpu.eccErrorsUncorrected !== null && gpu.eccErrorsUncorrected > 0) return "error";
  const used = gpu.processes.length > 0 || (gpu.utilizationGpuPct ?? 0) >= IN_USE_UTIL_PCT;
  if (active) {
    const holder = active.holder.username;
    if (gpu.processes.some((process) => process.user !== null && process.user !== holder)) return "conflict";
    return used ? "in-use" : "booked";
  }
  return used ? "in-use" : "free";
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

/** The server's seven states in the display's six colours: in use is in use, booked or not (the holder line tells). */
const FROM_SERVER_STATE: Record<GpuState, DisplayGpuState> = {
  free: "free",
  booked_idle: "booked",
  booked_in_use: "in-use",
  unbooked_use: "in-use",
  conflict: "conflict",
  error: "error",
  offline: "offline",
};

function unique(names: (string | null)[]): string[] {
  return [...new Set(names.filter((name): name is string => name !== null && name.length > 0))];
}

function eccProblem(gpu: LiveGpu): string | null {
  const errors = gpu.eccErrorsUncorrected;
  if (errors === null || errors <= 0) return null;
  return `${errors} uncorrected ECC error${errors === 1 ? "" : "s"}`;
}

/**
 * One tile per GPU of these hosts, in host order then nvidia-smi index
 * order. `states` are the server's reconciliations by UUID (may be empty).
 */
export function displayTiles(
  hosts: LiveHost[],
  gpus: Record<string, LiveGpu>,
  bookings: LiveBooking[],
  states: Record<string, GpuReconciliation>,
  nowMs: number,
): Map<string, DisplayTile[]> {
  const tiles = new Map<string, DisplayTile[]>();
  for (const host of hosts) {
    const list: DisplayTile[] = [];
    for (const uuid of host.gpuUuids) {
      const gpu = gpus[uuid];
      if (!gpu) continue;
      // Times decide, not messages: a booking ends on the wall at its end even if no message arrives then.
      const { current, next } = bookingsOfGpu(bookings, uuid, nowMs);
      const base = {
        uuid,
        index: gpu.index,
        hostId: host.id,
        model: shortModelName(gpu.name),
        utilizationPct: gpu.utilizationGpuPct,
        memoryUsedMiB: gpu.memoryUsedMiB,
        memoryTotalMiB: gpu.memoryTotalMiB,
        next: !current && next ? { name: next.holder.name || next.holder.username, startsAt: next.startsAt } : null,
      };
      const reconciled = states[uuid];
      if (reconciled) {
        const booking = bookings.find((entry) => entry.reservationId === reconciled.reservationId) ?? current;
        const holder = reconciled.holder && booking ? { name: reconciled.holder.name || reconciled.holder.username, username: reconciled.holder.username, endsAt: booking.endsAt } : null;
        const state = host.online ? FROM_SERVER_STATE[reconciled.state] : "offline";
        const runners = state === "conflict" ? reconciled.processes.filter((process) => process.intruder) : reconciled.processes;
        list.push({
          ...base,
          state,
          holder,
          otherUsers: unique(runners.map(attributedName)).filter((name) => name !== holder?.username),
          problem: state === "error" ? (reconciled.problem ?? eccProblem(gpu)) : null,
          next: holder ? null : base.next,
        });
        continue;
      }
      const holderName = current?.holder.username ?? null;
      const state = gpuDisplayState(gpu, host.online, current);
      list.push({
        ...base,
        state,
        holder: current ? { name: current.holder.name || current.holder.username, username: current.holder.username, endsAt: current.endsAt } : null,
        otherUsers: unique(gpu.processes.map((process) => process.user)).filter((user) => user !== holderName),
        problem: state === "error" ? eccProblem(gpu) : null,
      });
    }
    tiles.set(host.id, list);
  }
  return tiles;
}

export interface DisplaySummary {
  /** Free GPUs now per model, most free first; models with none free are listed with 0 so that "none left" shows. */
  freeByModel: { model: string; free: number; total: number }[];
  counts: Record<DisplayGpuState, number>;
  total: number;
}

export function summarizeTiles(tiles: Iterable<DisplayTile>): DisplaySummary {
  const counts: Record<DisplayGpuState, number> = { free: 0, booked: 0, "in-use": 0, conflict: 0, error: 0, offline: 0 };
  const models = new Map<string, { free: number; total: number }>();
  let total = 0;
  for (const tile of tiles) {
    total += 1;
    counts[tile.state] += 1;
    const model = models.get(tile.model) ?? { free: 0, total: 0 };
    model.total += 1;
    if (tile.state === "free") model.free += 1;
    models.set(tile.model, model);
  }
  const freeByModel = [...models.entries()]
    .map(([model, { free, total: modelTotal }]) => ({ model, free, total: modelTotal }))
    .sort((a, b) => b.free - a.free || a.model.localeCompare(b.model));
  return { freeByModel, counts, total };
}

/**
 * Hosts a `?hosts=a,b` filter names (case-insensitive), in fleet order, and
 * the names that matched nothing. No filter: every host.
 */
export function filterHosts(hosts: LiveHost[], names: string[] | null): { hosts: LiveHost[]; unknown: string[] } {
  if (!names || names.length === 0) return { hosts, unknown: [] };
  const wanted = new Set(names.map((name) => name.toLowerCase()));
  const shown = hosts.filter((host) => wanted.has(host.name.toLowerCase()));
  const known = new Set(shown.map((host) => host.name.toLowerCase()));
  return { hosts: shown, unknown: names.filter((name) => !known.has(name.toLowerCase())) };
}
