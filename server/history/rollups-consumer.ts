import type { GpuReconciliation } from "@/lib/domain/attribution";
import type { MinuteRollups } from "@/server/history/minute-rollups";
import type { TickConsumer } from "@/server/tick/tick-view";

/**
 * Who runs on a GPU, for its usage: the person its work is attributed to.
 * When a squatter runs beside the booking's person, the squatter (an
 * intruder) is named, so that the hours count for whoever took them; use
 * without a booking names the person running it. Null when no process
 * leads to a known person (nothing runs, or use nobody can see).
 */
export function runnerOf(state: GpuReconciliation): string | null {
  let first: string | null = null;
  for (const process of state.processes) {
    if (!process.runner) continue;
    if (process.intruder) return process.runner.id;
    first ??= process.runner.id;
  }
  return first;
}

/**
 * The minute rollups as a consumer of the tick (every instance: each
 * records its own agents' minutes), their one way in: each tick's view
 * brings the readings of the second (the numbers, recorded first) and the
 * attribution, which tells the minute of each GPU's latest reading who
 * booked it (the booking's person, `bookedBy` of the reconciliation) and
 * who ran there (`runnerOf`).
 */
export function rollupsConsumer(rollups: Pick<MinuteRollups, "record" | "witness">): TickConsumer {
  return {
    name: "minute rollups",
    runs: "everywhere",
    consume(view) {
      for (const reading of view.readings) rollups.record(reading.host, reading.snapshot);
      for (const uuid in view.gpuStates) {
        const state = view.gpuStates[uuid]!;
        rollups.witness(uuid, state.bookedBy?.id ?? null, runnerOf(state), view.nowMs);
      }
    },
  };
}
