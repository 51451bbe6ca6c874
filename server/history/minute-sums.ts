import { db } from "@/server/core/db";
import { MINUTE_RULES } from "@/server/history/resolution";
import type { MinuteRow } from "@/server/history/rollup-math";
import { readMinutePages } from "@/server/history/rollup-store";
import { notWhileSlicedMinutes } from "@/server/history/unit-weights";

/** One group's sums over its minutes, by `MINUTE_RULES`; `row` is its first minute, for the columns it is grouped by. */
export interface MinuteSums {
  row: MinuteRow;
  minutes: number;
  utilMinutes: number;
  utilCounted: number;
  busyMinutes: number;
  idleMinutes: number;
  /** Minutes of the simulated fleet. */
  simulated: number;
}

interface SumRequest {
  fromMs: number;
  toMs: number;
  keyOf: (row: MinuteRow) => string | null;
  notWhileSliced: boolean;
  sums: Map<string, MinuteSums>;
  resolve: (sums: Map<string, MinuteSums>) => void;
  reject: (error: unknown) => void;
}

/** Requests waiting for the next turn of the event loop, in passes over overlapping ranges. */
let waiting: { fromMs: number; toMs: number; requests: SumRequest[] }[] = [];

/**
 * The minute path of the usage queries: the stored minutes of [fromMs, toMs)
 * summed per `keyOf` (null leaves a minute out), what the hour path's GROUP
 * BY over `HOUR_SQL` does in the database. `notWhileSliced` leaves out a
 * split GPU's own minutes as unit-weights.ts's `notWhileSliced` does its
 * hours. Sums asked for in the same turn of the event loop over overlapping
 * ranges (a usage report's series, heatmap, tables and use without a
 * booking) share one read of the blocks: decoding is most of the cost.
 */
export function sumMinutes(fromMs: number, toMs: number, keyOf: (row: MinuteRow) => string | null, options: { notWhileSliced?: boolean } = {}): Promise<Map<string, MinuteSums>> {
  return new Promise((resolve, reject) => {
    const request: SumRequest = { fromMs, toMs, keyOf, notWhileSliced: options.notWhileSliced ?? false, sums: new Map(), resolve, reject };
    if (waiting.length === 0) setImmediate(runWaiting);
    const pass = waiting.find((candidate) => candidate.fromMs < toMs && fromMs < candidate.toMs);
    if (pass) {
      pass.fromMs = Math.min(pass.fromMs, fromMs);
      pass.toMs = Math.max(pass.toMs, toMs);
      pass.requests.push(request);
    } else waiting.push({ fromMs, toMs, requests: [request] });
  });
}

function runWaiting(): void {
  const passes = waiting;
  waiting = [];
  for (const pass of passes) {
    runPass(pass.fromMs, pass.toMs, pass.requests).then(
      () => pass.requests.forEach((request) => request.resolve(request.sums)),
      (error: unknown) => pass.requests.forEach((request) => request.reject(error)),
    );
  }
}

async function runPass(fromMs: number, toMs: number, requests: SumRequest[]): Promise<void> {
  const keep = requests.some((request) => request.notWhileSliced) ? await notWhileSlicedMinutes() : null;
  for await (const page of readMinutePages(db(), fromMs, toMs)) {
    const kept = keep ? keep(page) : page;
    for (const request of requests) {
      for (const row of request.notWhileSliced ? kept : page) {
        const at = row.minute.getTime();
        if (at < request.fromMs || at >= request.toMs) continue;
        const key = request.keyOf(row);
        if (key === null) continue;
        let group = request.sums.get(key);
        if (!group) request.sums.set(key, (group = { row, minutes: 0, utilMinutes: 0, utilCounted: 0, busyMinutes: 0, idleMinutes: 0, simulated: 0 }));
        group.minutes += MINUTE_RULES.minutes(row);
        group.utilMinutes += MINUTE_RULES.utilMinutes(row);
        group.utilCounted += MINUTE_RULES.utilCounted(row);
        group.busyMinutes += MINUTE_RULES.busyMinutes(row);
        group.idleMinutes += MINUTE_RULES.idleMinutes(row);
        group.simulated += row.simulated ? 1 : 0;
      }
    }
  }
}
