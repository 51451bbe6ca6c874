import type { Snapshot } from "@/lib/domain/snapshot";
import { log } from "@/server/core/log";
import { MinuteRollups, type RollupStats } from "@/server/history/minute-rollups";
import { pruneHistory, type RetentionPolicy } from "@/server/history/retention";
import { rollupsConsumer } from "@/server/history/rollups-consumer";
import type { TickConsumer } from "@/server/tick/tick-view";

export interface HistoryConfig extends RetentionPolicy {
  /** How often accumulated minutes are written. */
  flushEveryMs: number;
  /** How often old rollups are pruned. */
  pruneEveryMs?: number;
  now?: () => number;
}

export interface HistoryStats extends RollupStats {
  lastPruneAt: number | null;
}

export interface HistoryService {
  /** The ingest hook: every accepted snapshot, live or replayed. */
  record: (host: { id: string; simulated: boolean }, snapshot: Snapshot) => void;
  /** The tick's consumer: who booked each GPU and who ran there, for the minutes recorded here. */
  tickConsumer: TickConsumer;
  /** Writes what is pending now. */
  flush: () => Promise<void>;
  /** Calls `listener` after each flush that wrote minutes (idle release looks again then). */
  onFlushed: (listener: () => void) => void;
  /**
   * Starts pruning old rollups in the background, hourly, in small batches
   * (server/history/retention.ts); returns the function that stops it and
   * waits for the batch in flight. Separate from the rollups because, with
   * several instances, only the leader prunes (a job of server/cluster/),
   * while every instance writes the minutes of its own agents.
   */
  startPruning: () => () => Promise<void>;
  /** Stops the timers and writes what is pending: a clean shutdown loses nothing. */
  close: () => Promise<void>;
  stats: () => HistoryStats;
}

const shared = globalThis as unknown as { __gpudeskHistory?: HistoryService };

/** The running server's history service, if any (the /metrics route reads its counters). */
export function currentHistory(): HistoryService | undefined {
  return shared.__gpudeskHistory;
}

/**
 * Starts the usage history of the server: minute rollups written every
 * `flushEveryMs` (a crash loses at most that much; a clean stop nothing);
 * retention is pruned once `startPruning` is called.
 *
 * With several instances each one records and writes the readings of the
 * agents connected to it, and only those (readings relayed from other
 * instances feed the live state, never the history), so every reading is
 * counted once. A minute written in parts (an agent that moved to another
 * instance within the minute, or two flushes) is merged by the database:
 * the upsert adds the sample counts and weighs the averages (rollup-store.ts).
 * Leader-only rollups would lose the minutes of the other instances' agents.
 */
export function startHistory(config: HistoryConfig): HistoryService {
  const now = config.now ?? Date.now;
  const rollups = new MinuteRollups(now);
  let lastPruneAt: number | null = null;
  let closed = false;
  const flushed = new Set<() => void>();

  const flush = async () => {
    try {
      const result = await rollups.flush();
      if (result.minutes > 0) for (const listener of flushed) listener();
    } catch (error) {
      log.error(`could not write usage rollups (kept for the next try): ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  // One pass at a time; stopping aborts it between two batches and waits for the batch in flight.
  let pass: Promise<void> | null = null;
  const prune = (signal: AbortSignal) => {
    pass ??= (async () => {
      try {
        const result = await pruneHistory(new Date(now()), config, { signal });
        lastPruneAt = now();
        if (result.minutes + result.hours > 0) {
          log.info(`pruned usage history: ${result.minutes} minute rows (${result.hoursRolledUp} hours rolled up first), ${result.hours} hour rows`);
        }
      } catch (error) {
        log.error(`could not prune usage history: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        pass = null;
      }
    })();
    return pass;
  };
  const flushTimer = setInterval(() => void flush(), config.flushEveryMs);
  flushTimer.unref();
  const stopPruning = new Set<() => Promise<void>>();
  const startPruning = () => {
    const pruneEveryMs = config.pruneEveryMs ?? 60 * 60_000;
    const aborter = new AbortController();
    // The first prune waits a minute so that it does not compete with start-up work.
    const firstPrune = setTimeout(() => void prune(aborter.signal), Math.min(60_000, pruneEveryMs));
    firstPrune.unref();
    const pruneTimer = setInterval(() => void prune(aborter.signal), pruneEveryMs);
    pruneTimer.unref();
    const stop = async () => {
      clearTimeout(firstPrune);
      clearInterval(pruneTimer);
      aborter.abort();
      stopPruning.delete(stop);
      await pass;
    };
    stopPruning.add(stop);
    return stop;
  };

  const service: HistoryService = {
    record: (host, snapshot) => {
      if (!closed) rollups.record(host, snapshot);
    },
    tickConsumer: rollupsConsumer(rollups),
    flush,
    onFlushed: (listener) => void flushed.add(listener),
    startPruning,
    async close() {
      closed = true;
      clearInterval(flushTimer);
      for (const stop of [...stopPruning]) await stop();
      await flush();
      if (shared.__gpudeskHistory === service) shared.__gpudeskHistory = undefined;
    },
    stats: () => ({ ...rollups.snapshotStats(), lastPruneAt }),
  };
  shared.__gpudeskHistory = service;
  return service;
}
