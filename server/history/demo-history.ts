import type { Snapshot } from "@/lib/domain/snapshot";
import { SIMULATED_BOOKER_PREFIX } from "@/lib/domain/usage-types";
import { simulatedSnapshotAt, type SimulatedHostSpec } from "@/host/collector/simulated/simulated-source";
import { db } from "@/server/core/db";
import { addSample, newMinuteEntry, toMinuteRow, type HourRow, type MinuteEntry } from "@/server/history/rollup-math";
import { HOUR_MS, MINUTE_MS, floorTo, type MinuteRow } from "@/server/minutes/minute-row";
import { rollupHours } from "@/server/history/hour-tally";
import { claimWriteLock, insertMissingMinuteRows, recomputeHours, upsertHourRows } from "@/server/history/rollup-store";
import { firstStoredMinute } from "@/server/minutes/minute-store";

/**
 * A turn for whatever else waits on the event loop (requests, the tick, the
 * agents' sockets). The simulator is pure computing: an hour of a 160-GPU
 * fleet took some 200 ms in one piece, and a week of them kept /api/health
 * from answering for over a minute while the log already said "ready".
 */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface HistoryWriter {
  /** Minute rows of one chunk; rows already stored must be left alone. */
  writeMinutes(rows: MinuteRow[]): Promise<void>;
  writeHours(rows: HourRow[]): Promise<void>;
  /** Recomputes these hours from whatever minutes are stored (hours that real readings may share). */
  recomputeHours(hourStarts: number[]): Promise<void>;
}

export interface DemoHistoryOptions {
  specs: SimulatedHostSpec[];
  seed: number | string;
  /** Host id by host name (the hosts of the simulated fleet, registered). */
  hostIds: Map<string, string>;
  fromMs: number;
  toMs: number;
  /** Readings per minute taken from the simulator; more is smoother and slower. */
  samplesPerMinute?: number;
  /** Account id for a Unix login, when one exists; others become `sim:<login>`. */
  accountOf?: (login: string) => string | undefined;
  writer?: HistoryWriter;
  /** Called after each hour written, with the fraction done. */
  onProgress?: (done: number) => void;
  /** Stops after the hour being written (server shutdown). */
  signal?: AbortSignal;
  /** Called at each turn the fill gives the event loop (after each host's hour, after each write); for tests. */
  onYield?: () => void;
}

export const prismaHistoryWriter: HistoryWriter = {
  writeMinutes: (rows) => db().$transaction((tx) => insertMissingMinuteRows(tx, rows), { timeout: 120_000 }),
  writeHours: (rows) => db().$transaction((tx) => upsertHourRows(tx, rows), { timeout: 120_000 }),
  recomputeHours: async (hourStarts) => {
    await db().$transaction(
      async (tx) => {
        await claimWriteLock(tx);
        await recomputeHours(tx, hourStarts);
      },
      { timeout: 120_000 },
    );
  },
};

/**
 * Who "held" a simulated GPU: the owner of its largest process. The
 * simulator has no bookings, so its history stands in the process owner
 * for the booker; synthetic rows are marked simulated.
 */
function largestProcessOwner(snapshot: Snapshot, gpuUuid: string): string | null {
  let owner: string | null = null;
  let largest = -1;
  for (const process of snapshot.processes) {
    if (process.gpuUuid !== gpuUuid || !process.user) continue;
    const memory = process.usedMemoryMiB ?? 0;
    if (memory > largest) {
      largest = memory;
      owner = process.user;
    }
  }
  return owner;
}

/**
 * Fills [fromMs, toMs) with synthetic minute and hour rollups of the
 * simulated fleet, computed from the same deterministic simulator the live
 * fleet runs on, so that history and live view agree. Minutes already stored
 * are kept; the hours near `toMs`, which real readings may share, are
 * recomputed from the stored minutes. Returns the number of minute rows made.
 */
export async function fillDemoHistory(options: DemoHistoryOptions): Promise<number> {
  const writer = options.writer ?? prismaHistoryWriter;
  const perMinute = Math.max(1, Math.min(60, Math.round(options.samplesPerMinute ?? 4)));
  const fromMs = floorTo(options.fromMs, MINUTE_MS);
  const toMs = floorTo(options.toMs, MINUTE_MS);
  if (toMs <= fromMs) return 0;
  // Hours that may also hold real minutes: computed from the database, not from this fill alone.
  const sharedFromMs = floorTo(toMs, HOUR_MS) - HOUR_MS;
  const bookedById = (login: string | null) =>
    login === null ? null : (options.accountOf?.(login) ?? `${SIMULATED_BOOKER_PREFIX}${login}`);

  let made = 0;
  const shared: number[] = [];
  const pause = async () => {
    await yieldToEventLoop();
    options.onYield?.();
  };
  for (let hourMs = floorTo(fromMs, HOUR_MS); hourMs < toMs && !options.signal?.aborted; hourMs += HOUR_MS) {
    const start = Math.max(hourMs, fromMs);
    const end = Math.min(hourMs + HOUR_MS, toMs);
    const rows: MinuteRow[] = [];
    for (const spec of options.specs) {
      const hostId = options.hostIds.get(spec.hostName);
      if (!hostId) continue;
      for (let minuteMs = start; minuteMs < end; minuteMs += MINUTE_MS) {
        const entries = new Map<string, MinuteEntry>();
        const owners = new Map<string, string | null>();
        for (let k = 0; k < perMinute; k++) {
          const snapshot = simulatedSnapshotAt(spec, options.seed, minuteMs + Math.floor((k * MINUTE_MS) / perMinute));
          const busy = new Set(snapshot.processes.map((process) => process.gpuUuid));
          for (const sample of snapshot.gpus) {
            let entry = entries.get(sample.uuid);
            if (!entry) {
              entry = newMinuteEntry(sample.uuid, minuteMs, hostId, true);
              entries.set(sample.uuid, entry);
            }
            addSample(entry, sample, busy.has(sample.uuid));
            if (k === Math.floor(perMinute / 2)) owners.set(sample.uuid, largestProcessOwner(snapshot, sample.uuid));
          }
        }
        for (const entry of entries.values()) rows.push(toMinuteRow(entry, bookedById(owners.get(entry.gpuUuid) ?? null)));
      }
      // One host's hour at a time: a few milliseconds of computing between turns of the event loop.
      await pause();
    }
    await writer.writeMinutes(rows);
    await pause();
    if (hourMs >= sharedFromMs || start !== hourMs) shared.push(hourMs);
    else {
      await writer.writeHours(rollupHours(rows));
      await pause();
    }
    made += rows.length;
    options.onProgress?.((end - fromMs) / (toMs - fromMs));
  }
  if (shared.length > 0) await writer.recomputeHours(shared);
  return made;
}

/**
 * Where synthetic history may go: up to the first stored minute (never over
 * real readings) and not past `nowMs`. Null when there is no room.
 */
export async function demoHistoryWindow(spanMs: number, nowMs: number): Promise<{ fromMs: number; toMs: number } | null> {
  const first = await firstStoredMinute(db());
  const toMs = Math.min(floorTo(nowMs, MINUTE_MS), first ?? Infinity);
  const fromMs = floorTo(nowMs - spanMs, MINUTE_MS);
  return toMs > fromMs ? { fromMs, toMs } : null;
}

/**
 * Demo account ids by Unix login, so that synthetic history of `alice` is
 * the demo alice's. Never a real person's: a real account that has the
 * login gets no invented minutes (the history stays "simulated alice").
 */
export async function accountsByLogin(): Promise<Map<string, string>> {
  const users = await db().user.findMany({ where: { unixLogin: { not: null }, simulated: true }, select: { id: true, unixLogin: true } });
  return new Map(users.map((user) => [user.unixLogin!, user.id]));
}

export interface SimulatedFleetHistoryOptions {
  seed: number;
  gpuCount?: number;
  spanMs: number;
  /** The end of the synthetic history (default: now). */
  nowMs?: number;
  signal?: AbortSignal;
  report?: (message: string) => void;
}

/**
 * `--demo-history`: registers the simulated fleet's hosts (as the embedded
 * agents do) and fills its synthetic history up to now or the first real
 * minute. Safe to run again: the second run finds no room and returns 0.
 */
export async function fillSimulatedFleetHistory(options: SimulatedFleetHistoryOptions): Promise<number> {
  const { simulatedFleet } = await import("@/host/collector/simulated/simulated-source");
  const { ensureLocalHost, recordHostInventory } = await import("@/server/hosts/host-registry");
  const nowMs = options.nowMs ?? Date.now();
  const specs = simulatedFleet({ seed: options.seed, gpuCount: options.gpuCount });
  const hostIds = new Map<string, string>();
  for (const spec of specs) {
    const host = await ensureLocalHost(spec.hostName, true);
    hostIds.set(spec.hostName, host.id);
    // The GPUs' models and indices, which the usage pages show, as the host's agent would record them.
    const reading = simulatedSnapshotAt(spec, options.seed, nowMs);
    await recordHostInventory(host.id, reading.host, reading.gpus, new Date(nowMs));
  }
  const window = await demoHistoryWindow(options.spanMs, nowMs);
  if (!window) {
    options.report?.("demo history: already there, nothing to fill");
    return 0;
  }
  const accounts = await accountsByLogin();
  const hours = Math.round((window.toMs - window.fromMs) / HOUR_MS);
  options.report?.(`demo history: filling ${hours} h of synthetic usage for ${specs.length} simulated hosts…`);
  let lastReported = 0;
  const made = await fillDemoHistory({
    specs,
    seed: options.seed,
    hostIds,
    ...window,
    accountOf: (login) => accounts.get(login),
    signal: options.signal,
    onProgress: (done) => {
      if (done - lastReported >= 0.25) {
        lastReported = done;
        options.report?.(`demo history: ${Math.round(done * 100)}%`);
      }
    },
  });
  options.report?.(`demo history: ${made} GPU-minutes written, marked simulated`);
  return made;
}
