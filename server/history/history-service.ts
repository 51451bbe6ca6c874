import { periodicJob, type JobTimers } from "@/server/core/jobs";
import { log } from "@/server/core/log";
import type { AcceptedReading } from "@/server/fleet/accepted-readings";
import { MinuteRollups, type RollupStats } from "@/server/history/minute-rollups";
import { announceMinutesStored } from "@/server/history/minutes-stored";
import { convertLegacyMinutes } from "@/server/history/convert-minutes";
import { sumDays } from "@/server/history/day-tier";
import { pruneHistory, type RetentionPolicy } from "@/server/history/retention";
import { rollupsConsumer } from "@/server/history/rollups-consumer";
import type { TickConsumer } from "@/server/tick/tick-view";

export interface HistoryConfig extends RetentionPolicy {
  /** How often accumulated minutes are written. */
  flushEveryMs: number;
  /** How often old rollups are pruned. */
  pruneEveryMs?: number;
  now?: () => number;
  /** The flush and prune jobs' clock (tests). */
  timers?: JobTimers;
}

export interface HistoryStats extends RollupStats {
  lastPruneAt: number | null;
}

export interface HistoryService {
  /** The tick's consumer, the rollups' one way in: each second's readings, who booked each GPU and who ran there. */
  tickConsumer: TickConsumer;
  /** Writes what is pending now. */
  flush: () => Promise<void>;
  /**
   * Starts pruning old rollups in the background, hourly, in small batches
   * (server/history/retention.ts); returns the function that stops it and
   * waits for the batch in flight. Separate from the rollups because, with
   * several instances, only the leader prunes (a job of server/cluster/),
   * while every instance writes the minutes of its own agents.
   */
  startPruning: () => () => Promise<void>;
  /**
   * Stops the timers and writes what is pending: a clean shutdown loses
   * nothing. `lastReadings`: those accepted after the tick stopped (the
   * embedded agents' last ones), recorded without a tick's word on who ran.
   */
  close: (lastReadings?: readonly AcceptedReading[]) => Promise<void>;
  stats: () => HistoryStats;
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
 * instance within the minute, or two flushes) is merged into its stored
 * block under the write lock: the sample counts added and the averages
 * weighed (rollup-store.ts, `mergeMinuteRows`).
 * Leader-only rollups would lose the minutes of the other instances' agents.
 */
export function startHistory(config: HistoryConfig): HistoryService {
  const now = config.now ?? Date.now;
  const rollups = new MinuteRollups(now);
  let lastPruneAt: number | null = null;
  let closed = false;

  const flush = async () => {
    try {
      const result = await rollups.flush();
      if (result.minutes > 0) announceMinutesStored();
    } catch (error) {
      log.error(`could not write usage rollups (kept for the next try): ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const flushing = periodicJob({ name: "usage rollups", everyMs: config.flushEveryMs, firstAfterMs: config.flushEveryMs, timers: config.timers, run: flush });
  flushing.start();
  const pruneEveryMs = config.pruneEveryMs ?? 60 * 60_000;
  const pruning = periodicJob({
    name: "usage history retention",
    everyMs: pruneEveryMs,
    // The first prune waits a minute so that it does not compete with start-up work.
    firstAfterMs: Math.min(60_000, pruneEveryMs),
    timers: config.timers,
    // Stopping aborts the pass between two batches and waits for the batch in flight.
    run: async (signal) => {
      // Minutes an older version kept one row each go into blocks first (once; then a single query).
      const converted = await convertLegacyMinutes({ signal });
      if (converted > 0) log.info(`moved ${converted} minute rows of an older version into minute blocks`);
      const result = await pruneHistory(new Date(now()), config, { signal });
      lastPruneAt = now();
      if (result.minuteBlocks + result.hours > 0) {
        log.info(`pruned usage history: ${result.minuteBlocks} GPU-hours of minutes (${result.hoursRolledUp} hours rolled up first), ${result.hours} hour rows`);
      }
      // After the prune, so that no day is summed from hours about to go: at start the backfill, then the day that ended.
      const days = await sumDays(now(), { signal });
      if (days > 1) log.info(`summed ${days} days of usage history into the day tier`);
    },
  });

  const service: HistoryService = {
    tickConsumer: rollupsConsumer({
      record: (host, snapshot) => {
        if (!closed) rollups.record(host, snapshot);
      },
      witness: (uuid, bookedBy, runner, nowMs) => rollups.witness(uuid, bookedBy, runner, nowMs),
    }),
    flush,
    startPruning: () => pruning.start(),
    async close(lastReadings = []) {
      for (const reading of lastReadings) rollups.record(reading.host, reading.snapshot);
      closed = true;
      await flushing.stop();
      await pruning.stop();
      await flush();
    },
    stats: () => ({ ...rollups.snapshotStats(), lastPruneAt }),
  };
  return service;
}
