import { db } from "@/server/db";
import { HOUR_MS, floorTo } from "@/server/history/rollup-math";

const DAY_MS = 24 * HOUR_MS;

export interface RetentionPolicy {
  /** Days of minute rollups kept. */
  minuteDays: number;
  /** Days of hourly rollups kept. */
  hourDays: number;
}

export interface PruneResult {
  minutes: number;
  hours: number;
}

/**
 * Deletes rollups older than the policy allows. Hourly rows are kept up to
 * date by every write of minutes (see MinuteRollups), so the minutes pruned
 * here have long been summed into their hours. Hours are pruned whole: an
 * hour goes once its start is older than the cutoff.
 */
export async function pruneHistory(now: Date, policy: RetentionPolicy): Promise<PruneResult> {
  const minuteCutoff = new Date(now.getTime() - policy.minuteDays * DAY_MS);
  const hourCutoff = new Date(floorTo(now.getTime() - policy.hourDays * DAY_MS, HOUR_MS));
  const minutes = await db().gpuMinute.deleteMany({ where: { minute: { lt: minuteCutoff } } });
  const hours = await db().gpuHour.deleteMany({ where: { hour: { lt: hourCutoff } } });
  return { minutes: minutes.count, hours: hours.count };
}
