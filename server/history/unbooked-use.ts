import type { UnbookedPersonUsage } from "@/lib/domain/team-usage";
import { db } from "@/server/core/db";
import { sumGpuTime } from "@/server/history/gpu-time";
import { planResolution } from "@/server/history/resolution";
import { num } from "@/server/core/sql-dialect";
import { unitWeights } from "@/server/history/unit-weights";

/**
 * GPU-hours of work on GPUs nobody had booked, by the person the tick
 * attributed it to (the rollups' `runnerUserId`: a login's person, a
 * container's or Slurm job's owner), busiest first. Busy minutes whose work
 * nobody could be named for come back as one row without a person.
 */
export async function unbookedUseByPerson(query: { fromMs: number; toMs: number; nowMs: number; minuteRetentionMs: number }): Promise<UnbookedPersonUsage[]> {
  const plan = planResolution(query.fromMs, query.toMs, query.nowMs, query.minuteRetentionMs);
  const perUnit = (await sumGpuTime({ table: plan.table, fromMs: query.fromMs, toMs: query.toMs, by: ["runner", "gpu"], unbooked: true, notWhileSliced: true })).map((sum) => ({
    who: sum.runnerUserId,
    gpu: sum.gpuUuid,
    busy: sum.busyMinutes,
  }));
  // A MIG slice's busy minutes weigh its share of its GPU, as in the usage report.
  const weightOf = await unitWeights([...new Set(perUnit.map((row) => row.gpu))]);
  const byWho = new Map<string | null, number>();
  for (const row of perUnit) byWho.set(row.who, (byWho.get(row.who) ?? 0) + num(row.busy) * weightOf(row.gpu).share);
  const rows = [...byWho].map(([who, busy]) => ({ who, busy }));
  const ids = rows.flatMap((row) => (row.who ? [row.who] : []));
  const users = new Map((await db().user.findMany({ where: { id: { in: ids } }, select: { id: true, username: true, name: true } })).map((user) => [user.id, user]));
  return rows
    .filter((row) => num(row.busy) > 0)
    .map((row): UnbookedPersonUsage => {
      const user = row.who ? users.get(row.who) : undefined;
      return {
        userId: user?.id ?? null,
        login: null,
        label: user ? user.name || user.username || user.id : row.who ? "deleted account" : "Nobody named",
        usedWithoutBookingGpuHours: num(row.busy) / 60,
      };
    })
    .sort((a, b) => b.usedWithoutBookingGpuHours - a.usedWithoutBookingGpuHours);
}
