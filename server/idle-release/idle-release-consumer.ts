import type { LiveGpu } from "@/lib/live/live";
import { onMinutesStored } from "@/server/history/minutes-stored";
import { startIdleRunner } from "@/server/idle-release/idle-runner";
import type { IdleRun, TickConsumer } from "@/server/tick/tick-view";

export interface IdleReleaseConsumer extends TickConsumer {
  /** Each active booking's idle run from the last pass: the idle-booking alert's clock. */
  standings(): ReadonlyMap<string, IdleRun>;
}

/**
 * Idle release as a consumer of the tick (leader only). The 1 Hz path stays
 * light: a tick only hands over its GPUs (live readings not stored yet, and
 * the processes a release leaves running); the decisions run from stored
 * minutes every 30 s and whenever the history announces stored minutes
 * (server/history/minutes-stored.ts; server/idle-release/idle-runner.ts).
 * The standings of its last pass (`standings`) are the idle-booking alert's
 * clock: server/main/start-tick.ts hands them to the alert rules.
 */
export function idleReleaseConsumer(options: { alertHoldMinutes: number; publicUrl?: string; everyMs?: number }): IdleReleaseConsumer {
  let gpus: readonly LiveGpu[] = [];
  const runner = startIdleRunner({ liveGpus: () => gpus, alertHoldMinutes: options.alertHoldMinutes, publicUrl: options.publicUrl, everyMs: options.everyMs });
  let stopTerm: (() => Promise<void>) | null = null;
  return {
    name: "idle release",
    runs: "leader",
    start() {
      const stopRunner = runner.leaderJob.start();
      const stopHearing = onMinutesStored(runner.poke);
      stopTerm = async () => {
        stopHearing();
        await stopRunner();
      };
    },
    consume(view) {
      gpus = view.gpus;
    },
    async stop() {
      const stop = stopTerm;
      stopTerm = null;
      await stop?.();
    },
    standings: runner.standings,
  };
}
