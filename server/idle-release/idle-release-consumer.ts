import type { LiveGpu } from "@/lib/live/live";
import type { IdleRun } from "@/server/alerts/alert-rules";
import { startIdleRunner } from "@/server/idle-release/idle-runner";
import type { TickConsumer } from "@/server/tick/tick-view";

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
    },
    stop() {
      stopTerm?.();
      stopTerm = null;
    },
    poke: runner.poke,
    standings: runner.standings,
  };
}
