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

/**
 * The minute path of the usage queries: the stored minutes of [fromMs, toMs)
 * summed per `keyOf` (null leaves a minute out), what the hour path's GROUP
 * BY over `HOUR_SQL` does in the database. `notWhileSliced` leaves out a
 * split GPU's own minutes as unit-weights.ts's `notWhileSliced` does its hours.
 */
export async function sumMinutes(
  fromMs: number,
  toMs: number,
  keyOf: (row: MinuteRow) => string | null,
  options: { notWhileSliced?: boolean } = {},
): Promise<Map<string, MinuteSums>> {
  const keep = options.notWhileSliced ? await notWhileSlicedMinutes() : (rows: MinuteRow[]) => rows;
  const sums = new Map<string, MinuteSums>();
  for await (const page of readMinutePages(db(), fromMs, toMs)) {
    for (const row of keep(page)) {
      const key = keyOf(row);
      if (key === null) continue;
      let group = sums.get(key);
      if (!group) sums.set(key, (group = { row, minutes: 0, utilMinutes: 0, utilCounted: 0, busyMinutes: 0, idleMinutes: 0, simulated: 0 }));
      group.minutes += MINUTE_RULES.minutes(row);
      group.utilMinutes += MINUTE_RULES.utilMinutes(row);
      group.utilCounted += MINUTE_RULES.utilCounted(row);
      group.busyMinutes += MINUTE_RULES.busyMinutes(row);
      group.idleMinutes += MINUTE_RULES.idleMinutes(row);
      group.simulated += row.simulated ? 1 : 0;
    }
  }
  return sums;
}
