import type { UnbookedPersonUsage } from "@/lib/team-usage";
import { db } from "@/server/db";

/**
 * GPU-hours of work on GPUs nobody had booked, by the person the live view
 * named for it (a login's person, a container's or Slurm job's owner, as
 * the tick attributed it: server/teams/unbooked-use-recorder.ts), busiest
 * first. Work nobody could be named for comes back as one row without a person.
 */
export async function unbookedUseByPerson(query: { fromMs: number; toMs: number }): Promise<UnbookedPersonUsage[]> {
  const rows = await db().unbookedUse.groupBy({
    by: ["ranBy"],
    where: { minute: { gte: new Date(query.fromMs), lt: new Date(query.toMs) } },
    _sum: { seconds: true },
  });
  const ids = rows.flatMap((row) => (row.ranBy && !row.ranBy.startsWith("login:") ? [row.ranBy] : []));
  const users = new Map((await db().user.findMany({ where: { id: { in: ids } }, select: { id: true, username: true, name: true } })).map((user) => [user.id, user]));
  return rows
    .filter((row) => (row._sum.seconds ?? 0) > 0)
    .map((row): UnbookedPersonUsage => {
      const user = row.ranBy ? users.get(row.ranBy) : undefined;
      // A login without an account (or an account since deleted): the name the live view saw.
      const login = row.ranBy && !user ? row.ranBy.replace(/^login:/, "") : null;
      return {
        userId: user?.id ?? null,
        login,
        label: user ? user.name || user.username || user.id : login ? `${login} (no account)` : "Nobody named",
        usedWithoutBookingGpuHours: (row._sum.seconds ?? 0) / 3600,
      };
    })
    .sort((a, b) => b.usedWithoutBookingGpuHours - a.usedWithoutBookingGpuHours);
}
