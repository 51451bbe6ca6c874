import { pushChangedRow, readRow, type RowValue } from "@/lib/live/live-rows";
import { READING_FIELDS, READING_ROW_LENGTH, type WireProcess } from "@/lib/live/live-wire";
import type { GpuSample, ProcessInfo, Snapshot } from "@/lib/domain/snapshot";

/*
 * What one instance tells the others over Redis (docs/live-protocol.md,
 * "The relay between instances"). A host's reading travels whole once, as a
 * keyframe, then as rows of what changed (lib/live/live-rows.ts, the same rows
 * as the live wire's, but with the values as the agent read them, not
 * rounded: the other instances keep them as history and alert on them).
 * Each reading of a host carries the next number of the host's chain, so a
 * receiver that missed one (Redis pub/sub does not promise delivery) or
 * joined late knows it cannot apply the rows and asks for a keyframe.
 */

/** Bumped when the message shape changes: an instance of another version is skipped (one warning), not misread. */
export const RELAY_FORMAT_VERSION = 2;

/** A host's full reading goes out at least this often, even when nobody asked. */
export const KEYFRAME_EVERY_MS = 120_000;

export type RelayEvent =
  | { k: "connected"; h: string; name: string; simulated: boolean }
  | { k: "disconnected"; h: string }
  | { k: "removed"; h: string }
  /** A keyframe: the whole reading, as the sending instance accepted it; `n` starts the host's chain again. */
  | { k: "key"; h: string; n: number; name: string; simulated: boolean; s: Snapshot }
  /** A reading as rows: `t` its sampledAt (ms), `r` one row per GPU of the keyframe, in its order. */
  | { k: "row"; h: string; n: number; t: number; r: RowValue[] }
  /** Asks instance `to` for keyframes of hosts `h` (a gap in their chain, or never seen here). */
  | { k: "need"; to: string; h: string[] };

export interface RelayMessage {
  v: number;
  from: string;
  e: RelayEvent[];
}

const PROCESS_MEMORY = READING_FIELDS.length;
const PROCESS_SET = READING_FIELDS.length + 1;

/** The row tuple of a GPU's reading: READING_FIELDS as read, its processes' memory, its processes without memory. */
function relayTuple(gpu: GpuSample, processes: ProcessInfo[]): RowValue[] {
  const tuple = new Array<RowValue>(READING_ROW_LENGTH);
  for (let i = 0; i < READING_FIELDS.length; i += 1) tuple[i] = gpu[READING_FIELDS[i]];
  tuple[PROCESS_MEMORY] = processes.map((process) => process.usedMemoryMiB);
  tuple[PROCESS_SET] = processes.map(({ gpuUuid: _gpu, usedMemoryMiB: _memory, ...rest }) => rest) as RowValue[];
  return tuple;
}

/** What a keyframe fixes: a change in any of it (versions, inventory, a GPU's identity) sends a keyframe. */
function fixedKey(name: string, simulated: boolean, snapshot: Snapshot): string {
  const { host, gpus } = snapshot;
  const parts = [name, String(simulated), host.name, host.driverVersion, host.cudaVersion];
  for (const gpu of gpus) parts.push(String(gpu.index), gpu.uuid, gpu.name, gpu.pciBusId, gpu.migMode);
  return parts.join("\u0000");
}

function processesByGpu(snapshot: Snapshot): Map<string, ProcessInfo[]> {
  const byGpu = new Map<string, ProcessInfo[]>();
  for (const process of snapshot.processes) {
    const list = byGpu.get(process.gpuUuid);
    if (list) list.push(process);
    else byGpu.set(process.gpuUuid, [process]);
  }
  return byGpu;
}

interface SentHost {
  n: number;
  fixed: string;
  tuples: RowValue[][];
  keyAt: number;
}

/**
 * The sending side: turns each reading of this instance's agents into a
 * keyframe or a row event, remembering per host what it last sent.
 */
export class RelayEncoder {
  private readonly sent = new Map<string, SentHost>();
  private readonly wanted = new Set<string>();

  /** The next reading of these hosts goes out as a keyframe (another instance asked). */
  want(hostIds: readonly string[]): void {
    for (const id of hostIds) this.wanted.add(id);
  }

  forget(hostId: string): void {
    this.sent.delete(hostId);
    this.wanted.delete(hostId);
  }

  encode(host: { id: string; name: string; simulated: boolean }, snapshot: Snapshot, now: number): RelayEvent {
    const byGpu = processesByGpu(snapshot);
    const tuples = snapshot.gpus.map((gpu) => relayTuple(gpu, byGpu.get(gpu.uuid) ?? []));
    const fixed = fixedKey(host.name, host.simulated, snapshot);
    const held = this.sent.get(host.id);
    const n = held ? held.n + 1 : 0;
    if (!held || held.fixed !== fixed || now - held.keyAt >= KEYFRAME_EVERY_MS || this.wanted.has(host.id)) {
      this.wanted.delete(host.id);
      this.sent.set(host.id, { n, fixed, tuples, keyAt: now });
      return { k: "key", h: host.id, n, name: host.name, simulated: host.simulated, s: snapshot };
    }
    const rows: RowValue[] = [];
    for (let i = 0; i < tuples.length; i += 1) {
      const previous = held.tuples[i];
      const next = tuples[i];
      // An unchanged process set (the usual case) becomes the held one, so the row compares it by reference.
      if (JSON.stringify(previous[PROCESS_SET]) === JSON.stringify(next[PROCESS_SET])) next[PROCESS_SET] = previous[PROCESS_SET];
      pushChangedRow(rows, previous, next, true);
    }
    held.n = n;
    held.tuples = tuples;
    return { k: "row", h: host.id, n, t: Date.parse(snapshot.sampledAt), r: rows };
  }
}

interface HeardHost {
  /** The instance whose chain this is: a host's agent reports to one instance at a time. */
  from: string;
  n: number;
  name: string;
  simulated: boolean;
  host: Snapshot["host"];
  /** The GPUs of the keyframe without their changing values (those are in `tuples`). */
  gpus: GpuSample[];
  tuples: RowValue[][];
}

/** What a relayed event comes to on the receiving side. */
export type Decoded =
  | { ok: true; name: string; simulated: boolean; snapshot: Snapshot }
  /** The rows cannot be applied: a gap in the chain, or no keyframe of the host yet. */
  | { ok: false; need: true }
  | { ok: false; need: false; malformed: string };

/**
 * The receiving side: keeps, per host, the reading its chain stands at
 * (one chain per host, that of the instance its agent reports to: what a
 * restarted instance's chains held goes with the next keyframe), and turns
 * each event back into the agent's Snapshot that the sender accepted. No
 * schema parse here: the sender validated the reading (Redis between our
 * own instances is inside the trust boundary); a cheap look at the shape
 * keeps a malformed event from corrupting state.
 */
export class RelayDecoder {
  private readonly heard = new Map<string, HeardHost>();

  /** Forgets a host (removed from the fleet): its next reading needs a keyframe. */
  forget(hostId: string): void {
    this.heard.delete(hostId);
  }

  keyframe(from: string, event: { h: string; n: number; name: string; simulated: boolean; s: unknown }): Decoded {
    const snapshot = event.s;
    const problem = snapshotShapeProblem(snapshot);
    if (problem) return { ok: false, need: false, malformed: problem };
    const valid = snapshot as Snapshot;
    const byGpu = processesByGpu(valid);
    this.heard.set(event.h, {
      from,
      n: event.n,
      name: event.name,
      simulated: event.simulated,
      host: valid.host,
      gpus: valid.gpus,
      tuples: valid.gpus.map((gpu) => relayTuple(gpu, byGpu.get(gpu.uuid) ?? [])),
    });
    return { ok: true, name: event.name, simulated: event.simulated, snapshot: valid };
  }

  rows(from: string, event: { h: string; n: number; t: number; r: RowValue[] }): Decoded {
    const held = this.heard.get(event.h);
    // Another instance's chain (the agent moved), or a gap in this one.
    if (!held || held.from !== from || event.n !== held.n + 1) return { ok: false, need: true };
    const tuples: RowValue[][] = [];
    let at = 0;
    for (const previous of held.tuples) {
      const tuple = previous.slice();
      at = readRow(event.r, at, tuple, READING_ROW_LENGTH);
      if (at < 0) return { ok: false, need: false, malformed: "a row does not match its GPU's fields" };
      tuples.push(tuple);
    }
    if (at !== event.r.length) return { ok: false, need: false, malformed: "more rows than the host has GPUs" };
    held.n = event.n;
    held.tuples = tuples;

    const gpus: GpuSample[] = [];
    const processes: ProcessInfo[] = [];
    held.gpus.forEach((base, i) => {
      const tuple = tuples[i];
      const gpu = { ...base } as unknown as Record<string, RowValue>;
      for (let f = 0; f < READING_FIELDS.length; f += 1) gpu[READING_FIELDS[f]] = tuple[f];
      gpus.push(gpu as unknown as GpuSample);
      const memory = tuple[PROCESS_MEMORY] as (number | null)[];
      const set = tuple[PROCESS_SET] as WireProcess[];
      set.forEach((process, p) => processes.push({ ...process, gpuUuid: base.uuid, usedMemoryMiB: memory[p] ?? null }));
    });
    return {
      ok: true,
      name: held.name,
      simulated: held.simulated,
      snapshot: { host: held.host, gpus, processes, sampledAt: new Date(event.t).toISOString() },
    };
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/**
 * What is wrong with the shape of a relayed snapshot, or null: the
 * structure the live state walks (host, GPUs with their identity,
 * processes with their GPU, the time), not the value ranges the sender
 * already checked.
 */
export function snapshotShapeProblem(value: unknown): string | null {
  if (!isObject(value) || !isObject(value.host) || typeof value.host.name !== "string") return "no host";
  if (typeof value.sampledAt !== "string" || !Number.isFinite(Date.parse(value.sampledAt))) return "no sample time";
  if (!Array.isArray(value.gpus) || !Array.isArray(value.processes)) return "no GPU or process list";
  for (const gpu of value.gpus) {
    if (!isObject(gpu) || typeof gpu.uuid !== "string" || typeof gpu.index !== "number") return "a GPU without uuid or index";
  }
  for (const process of value.processes) {
    if (!isObject(process) || typeof process.gpuUuid !== "string") return "a process without its GPU";
  }
  return null;
}
