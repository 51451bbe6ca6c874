import type { GpuReconciliation } from "@/lib/domain/attribution";
import type { DisplayGpu, DisplayHost, FleetDelta, FleetSnapshot, GpuPoint, LiveBooking, LiveGpu, LiveHost } from "@/lib/live/live";
import { liveGpuOf } from "@/lib/live/live-gpu";
import { quantize, readRow, rowEnd, type RowValue } from "@/lib/live/live-rows";
import type { ProcessInfo } from "@/lib/domain/snapshot";

/**
 * What travels on `/live` (docs/live-protocol.md). Snapshots are whole and
 * number every GPU with a slot; deltas name GPUs by slot and carry only the
 * fields that changed since the previous delta of their scope, rounded to
 * what pages show. The version is checked at the handshake: a page built
 * for another version is refused with LIVE_FORMAT_ERROR and reloads.
 */
export const LIVE_FORMAT_VERSION = 4;
/** The handshake error a page of another format version gets (it reloads itself to fetch the current one). */
export const LIVE_FORMAT_ERROR = "live-format";

/** What a browser sends in the socket.io handshake's `auth`. */
export interface LiveHandshake {
  v?: number;
  /** A display token (wall screens); without it the session cookie counts. */
  token?: string;
  /** "display" asks for the display scope (a signed-in browser at /display); display tokens always get it. */
  scope?: "member" | "display";
  /** The display scope's `?hosts=` filter, host names. */
  hosts?: string[];
  /**
   * Whether a member-scope socket wants the whole fleet's feed from the
   * start (default true); a page that shows one GPU says false and watches
   * it with `gpu:watch`. `fleet:follow` / `fleet:unfollow` change it later.
   */
  fleet?: boolean;
}

/** The member scope's snapshot: FleetSnapshot plus each GPU's slot (`slots[i]` belongs to `gpus[i]`). */
export interface FleetSnapshotWire extends FleetSnapshot {
  v: number;
  slots: number[];
}

/**
 * The member scope's delta. `r` holds one flat array per sample time:
 * `[sampledAt − t (ms), slot, mask, values…, slot, mask, values…]`, each
 * `mask, values…` a row of READING_FIELDS (lib/live/live-rows.ts). A GPU that is
 * new to the scope, or whose fixed fields changed, comes whole in `n`.
 */
export interface FleetDeltaWire {
  v: number;
  /** Server time, ms since the epoch. */
  t: number;
  /** Hosts whose status, name, versions or inventory changed (whole entries). */
  h?: LiveHost[];
  /** Ids of hosts removed from the fleet. */
  x?: string[];
  /** [slot, whole entry] of GPUs new to the scope. */
  n?: [number, LiveGpu][];
  r?: RowValue[][];
  /** More history points than the one each reading makes (a replayed buffer), by slot, as PointColumns. */
  p?: Record<string, PointColumns>;
  /** GPU states that changed (whole entries). */
  s?: Record<string, GpuReconciliation>;
}

/**
 * A GPU scope's snapshot (`gpu:snapshot`), the answer to `gpu:watch`: one
 * GPU whole, its host, its last 15 minutes, its state and its bookings.
 * `gpu` and `host` are null for a GPU the fleet does not have (yet).
 */
export interface GpuSnapshotWire {
  v: number;
  /** The GPU watched. */
  u: string;
  serverTime: string;
  simulated: boolean;
  /** The slot later deltas name the GPU by; null while the fleet does not have it. */
  slot: number | null;
  gpu: LiveGpu | null;
  host: LiveHost | null;
  /** Up to 15 minutes of points, times after `serverTime` (so negative). */
  history: PointColumns;
  state: GpuReconciliation | null;
  /** Active and upcoming bookings of this GPU. */
  bookings: LiveBooking[];
}

/**
 * A GPU scope's delta (`gpu:delta`): a member-scope delta that speaks of one
 * GPU only (its reading row with every field, its host, its points, its
 * state), plus `u`, the GPU, and `b`, its bookings when they changed.
 */
export interface GpuDeltaWire extends FleetDeltaWire {
  u: string;
  b?: LiveBooking[];
}

export interface DisplaySnapshotWire {
  v: number;
  serverTime: string;
  simulated: boolean;
  hosts: DisplayHost[];
  gpus: DisplayGpu[];
  /** `slots[i]` belongs to `gpus[i]`. */
  slots: number[];
  openAlerts: number | null;
}

/** The display scope's delta: `r` is `[slot, mask, values…, slot, …]`, rows of DISPLAY_FIELDS. */
export interface DisplayDeltaWire {
  v: number;
  t: number;
  h?: DisplayHost[];
  x?: string[];
  n?: [number, DisplayGpu][];
  r?: RowValue[];
  /** The open-alert count, when it changed. */
  a?: number | null;
}

/**
 * History points as five columns: times as ms after the delta's `t` (so
 * negative), then utilization, memory, power and temperature, rounded as
 * shown. A replayed buffer brings up to 60 points per GPU; as objects that
 * was about 80 bytes a point.
 */
export type PointColumns = [number[], (number | null)[], (number | null)[], (number | null)[], (number | null)[]];

export function pointColumns(points: GpuPoint[], t: number): PointColumns {
  return [
    points.map((point) => point.t - t),
    points.map((point) => quantize(point.util)),
    points.map((point) => quantize(point.memUsedMiB)),
    points.map((point) => quantize(point.powerW)),
    points.map((point) => quantize(point.tempC)),
  ];
}

export function pointsOfColumnSet(columns: PointColumns, t: number): GpuPoint[] {
  const [times, util, mem, power, temp] = columns;
  return times.map((offset, i) => ({ t: t + offset, util: util[i] ?? null, memUsedMiB: mem[i] ?? null, powerW: power[i] ?? null, tempC: temp[i] ?? null }));
}

/** The changing values of a reading, in row order. Two more fields follow them: the processes' memory and the set of processes. */
export const READING_FIELDS = [
  "utilizationGpuPct",
  "memoryUsedMiB",
  "temperatureC",
  "powerDrawW",
  "utilizationMemoryPct",
  "fanSpeedPct",
  "smClockMHz",
  "eccErrorsUncorrected",
  "pstate",
  "memoryTotalMiB",
  "powerLimitW",
] as const;
const PROCESS_MEMORY = READING_FIELDS.length;
const PROCESS_SET = READING_FIELDS.length + 1;
export const READING_ROW_LENGTH = READING_FIELDS.length + 2;

/** A process as the row's process set carries it: without its GPU (known from the slot) and its memory (the other field). */
export type WireProcess = Omit<ProcessInfo, "gpuUuid" | "usedMemoryMiB">;

/** A reading's row tuple: the quantized values, the processes' memory (MiB, in list order), the processes without memory. */
export function readingTuple(gpu: LiveGpu): RowValue[] {
  const tuple: RowValue[] = new Array<RowValue>(READING_ROW_LENGTH);
  for (let i = 0; i < READING_FIELDS.length; i += 1) {
    const value = gpu[READING_FIELDS[i]];
    tuple[i] = typeof value === "number" ? quantize(value) : value;
  }
  tuple[PROCESS_MEMORY] = gpu.processes.map((process) => quantize(process.usedMemoryMiB));
  tuple[PROCESS_SET] = gpu.processes.map(({ gpuUuid: _gpu, usedMemoryMiB: _memory, ...rest }) => rest) as RowValue[];
  return tuple;
}

/**
 * Fields that only the GPU page shows (components/gpu/gpu-live-values.tsx):
 * they travel in its GPU scope and not in the member scope, where every
 * viewer of the fleet would pay for them on every GPU every second.
 */
export const GPU_PAGE_ONLY_FIELDS = ["utilizationMemoryPct", "fanSpeedPct", "smClockMHz", "pstate"] as const satisfies readonly (typeof READING_FIELDS)[number][];

/** A GPU as the member scope carries it: the GPU page's own fields null, so that its rows never carry them. */
export function memberSummaryOf(gpu: LiveGpu): LiveGpu {
  const summary: LiveGpu = { ...gpu };
  for (const field of GPU_PAGE_ONLY_FIELDS) summary[field] = null;
  return summary;
}

/** The fixed fields of a GPU: a change in any sends the whole entry again. */
export function gpuFixedKey(gpu: LiveGpu): string {
  return `${gpu.index}\u0000${gpu.name}\u0000${gpu.pciBusId}\u0000${gpu.migMode}\u0000${gpu.mig ? JSON.stringify(gpu.mig) : ""}\u0000${gpu.hostId}\u0000${gpu.hostName}`;
}

/**
 * The held entry with the row that starts at `at` in `group` put in, and
 * where the next item begins; -1 for a malformed row (nothing is built).
 * Only the fields the mask names are written (a reading changes two or
 * three of them), and the processes are rebuilt only when the row changed
 * them: this runs once per GPU per delta in every viewer.
 */
function gpuWithRow(held: LiveGpu, group: readonly RowValue[], at: number, sampledAt: string): { gpu: LiveGpu; next: number } | -1 {
  const next = rowEnd(group, at, READING_ROW_LENGTH);
  if (next < 0) return -1;
  const mask = group[at] as number;
  const gpu = liveGpuOf(held, held.hostId, held.hostName, sampledAt, held.processes);
  const fields = gpu as unknown as Record<string, RowValue>;
  let cursor = at + 1;
  for (let i = 0; i < READING_FIELDS.length; i += 1) {
    if (mask & (1 << i)) fields[READING_FIELDS[i]] = group[cursor++];
  }
  const memory = mask & (1 << PROCESS_MEMORY) ? (group[cursor++] as (number | null)[]) : null;
  const set = mask & (1 << PROCESS_SET) ? (group[cursor] as WireProcess[]) : null;
  if (memory === null && set === null) return { gpu, next };
  const processes = set ?? held.processes;
  const used = memory ?? held.processes.map((process) => quantize(process.usedMemoryMiB));
  gpu.processes = processes.map((process, i) => ({ ...process, gpuUuid: held.uuid, usedMemoryMiB: used[i] ?? null }));
  return { gpu, next };
}

/** Where each slot's GPU is, as the browser learnt it from its snapshot and later deltas. */
export type SlotTable = Record<number, string>;

/**
 * The delta a member-scope wire delta stands for, given the GPUs held now
 * and their slots; `slots` gains the new GPUs' slots. Rows for a slot the
 * browser does not know are skipped (they cannot be placed), as is a
 * malformed group.
 */
export function expandFleetDelta(wire: FleetDeltaWire, held: Record<string, LiveGpu>, slots: SlotTable): FleetDelta {
  const gpus = new Map<string, LiveGpu>();
  for (const [slot, gpu] of wire.n ?? []) {
    slots[slot] = gpu.uuid;
    gpus.set(gpu.uuid, gpu);
  }
  for (const group of wire.r ?? []) {
    const offset = group[0];
    if (typeof offset !== "number") continue;
    const sampledAt = new Date(wire.t + offset).toISOString();
    let at = 1;
    while (at < group.length) {
      const slot = group[at];
      const uuid = typeof slot === "number" ? slots[slot] : undefined;
      const base = uuid === undefined ? undefined : (gpus.get(uuid) ?? held[uuid]);
      if (!base || uuid === undefined) {
        at = rowEnd(group, at + 1, READING_ROW_LENGTH);
        if (at < 0) break;
        continue;
      }
      const row = gpuWithRow(base, group, at + 1, sampledAt);
      if (row === -1) break;
      gpus.set(uuid, row.gpu);
      at = row.next;
    }
  }
  const points: Record<string, GpuPoint[]> = {};
  for (const [slot, columns] of Object.entries(wire.p ?? {})) {
    const uuid = slots[Number(slot)];
    if (uuid !== undefined && Array.isArray(columns) && Array.isArray(columns[0])) points[uuid] = pointsOfColumnSet(columns, wire.t);
  }
  return {
    serverTime: new Date(wire.t).toISOString(),
    hosts: wire.h ?? [],
    gpus: [...gpus.values()],
    points,
    removedHostIds: wire.x ?? [],
    ...(wire.s ? { gpuStates: wire.s } : {}),
  };
}

/** The display scope's changing fields, in row order. */
export const DISPLAY_FIELDS = [
  "state",
  "utilizationPct",
  "memoryUsedMiB",
  "memoryTotalMiB",
  "temperatureC",
  "bookedByName",
  "bookedUntil",
] as const satisfies readonly (keyof DisplayGpu)[];

export function displayTuple(gpu: DisplayGpu): RowValue[] {
  return DISPLAY_FIELDS.map((field) => gpu[field]);
}

/** The fixed fields of a display GPU: a change in any sends the whole entry again. */
export function displayFixedKey(gpu: DisplayGpu): string {
  return `${gpu.index}\u0000${gpu.model}\u0000${gpu.hostId}\u0000${gpu.unseen === true}\u0000${gpu.runnerName ?? ""}\u0000${gpu.slice?.ref ?? ""}\u0000${gpu.slurm ? JSON.stringify(gpu.slurm) : ""}`;
}

/** Applies the rows of a display delta to the held GPUs (a new record, the changed entries replaced). */
export function applyDisplayRows(held: Record<string, DisplayGpu>, flat: readonly RowValue[], slots: SlotTable): Record<string, DisplayGpu> {
  const gpus = { ...held };
  let at = 0;
  while (at < flat.length) {
    const slot = flat[at];
    const uuid = typeof slot === "number" ? slots[slot] : undefined;
    const base = uuid === undefined ? undefined : gpus[uuid];
    const tuple = base ? displayTuple(base) : new Array<RowValue>(DISPLAY_FIELDS.length).fill(null);
    const next = readRow(flat, at + 1, tuple, DISPLAY_FIELDS.length);
    if (next < 0) break;
    at = next;
    if (!base || uuid === undefined) continue;
    const changed = { ...base } as unknown as Record<string, RowValue>;
    DISPLAY_FIELDS.forEach((field, i) => (changed[field] = tuple[i]));
    gpus[uuid] = changed as unknown as DisplayGpu;
  }
  return gpus;
}
