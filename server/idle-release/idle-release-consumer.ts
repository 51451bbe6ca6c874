import type { LiveGpu } from "@/lib/live/live";
import { startIdleRunner } from "@/server/idle-release/idle-runner";
import type { IdleRun, TickConsumer } from "@/server/tick/tick-view";

export interface IdleReleaseConsumer extends TickConsumer {
  /** A pass soon: new minute rollups were stored (server/history/). */
  poke(): void;
  /** Each active booking's idle run from the last pass: the idle-booking alert's clock. */
  standings(): ReadonlyMap<string, IdleRun>;
}

/**
 * Idle release as a consumer of the tick (leader only). The 1 Hz path stays
 * light: a tick only hands over its GPUs (live readings not stored yet, and
 * the processes a release leaves running); the decisions run from stored
 * minutes every 30 s and after each rollup flush (server/idle-release/idle-runner.ts).
 * It runs first and leaves its last pass's standings in the view's findings,
 * where the alert rules read the idle-booking alert's clock.
 */
export function idleReleaseConsumer(options: { alertHoldMinutes: number; publicUrl?: string; everyMs?: number }): IdleReleaseConsumer {
  let gpus: readonly LiveGpu[] = [];
  const runner = startIdleRunner({ liveGpus: () => gpus, alertHoldMinutes: options.alertHoldMinutes, publicUrl: options.publicUrl, everyMs: options.everyMs });
  let stopTerm: (() => void) | null = null;
  return {
    name: "idle release",
    runs: "leader",
    start() {
      stopTerm = runner.leaderJob.start();
    },
    consume(view) {
      gpus = view.gpus;
      view.findings.idleStandings = runner.standings();
    },
    stop() {
      stopTerm?.();
      stopTerm = null;
    },
    poke: runner.poke,
    standings: runner.standings,
  };
}
