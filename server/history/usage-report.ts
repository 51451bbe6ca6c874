import { Prisma } from "@prisma/client";
import type { TimeRange } from "@/lib/usage-range";
import type {
  HeatmapRow,
  HostUsage,
  PersonUsage,
  UsageGroupBy,
  UsageReport,
  UsageTotals,
  UtilizationHeatmap,
  UtilizationSeries,
} from "@/lib/usage-types";
import { SIMULATED_HOLDER_PREFIX } from "@/lib/usage-types";
import { db } from "@/server/db";
import { bucketStarts, planResolution, tableSql, type TableSql } from "@/server/history/resolution";
import { floorTo } from "@/server/history/rollup-math";
import { num } from "@/server/history/sql-dialect";

export interface UsageQuery {
  range: TimeRange;
  groupBy: UsageGroupBy;
  /** Only GPU time this person booked (a member's own page); absent for the whole fleet. */
  userId?: string;
  nowMs: number;
  minuteRetentionMs: number;
}

const MINUTES_PER_HOUR = 60;

const hours = (minutes: number) => minutes / MINUTES_PER_HOUR;

function whereRange(t: TableSql, fromMs: number, toMs: number, userId: string | undefined): Prisma.Sql {
  const time = Prisma.raw(t.time);
  const scope = userId === undefined ? Prisma.empty : Prisma.sql` AND r."holderUserId" = ${userId}`;
  return Prisma.sql`${time} >= ${new Date(fromMs)} AND ${time} < ${new Date(toMs)}${scope}`;
}

/**
 * Everything the usage page draws for one range, aggregated in the
 * database: the stacked utilization series, the GPU × time heatmap, the
 * per-person and per-host tables. Five queries, each a GROUP BY over one
 * rollup table; the code here only shapes their answers.
 */
export async function getUsageReport(query: UsageQuery): Promise<UsageReport> {
  const { range, groupBy, userId, nowMs, minuteRetentionMs } = query;
  const plan = planResolution(range.fromMs, range.toMs, nowMs, minuteRetentionMs);
  const [utilization, heatmap, { people, hosts: hostRows }] = await Promise.all([
    utilizationSeries(tableSql(plan.table), range, plan.bucketMs, groupBy, userId),
    utilizationHeatmap(tableSql(plan.heatmapTable), range, plan.heatmapBucketMs, userId),
    getUsageTables(query),
  ]);
  return {
    range: { ...range, bucketMs: plan.bucketMs, heatmapBucketMs: plan.heatmapBucketMs, source: plan.table },
    scope: userId === undefined ? "all" : "self",
    groupBy,
    includesSimulated: hostRows.simulated,
    utilization,
    heatmap,
    people,
    hosts: hostRows.hosts,
    totals: totalsOf(hostRows.hosts, people),
  };
}

/** Only the per-person and per-host tables (the CSV export): two of the five queries. */
export async function getUsageTables(query: UsageQuery): Promise<{ people: PersonUsage[]; hosts: { hosts: HostUsage[]; simulated: boolean } }> {
  const plan = planResolution(query.range.fromMs, query.range.toMs, query.nowMs, query.minuteRetentionMs);
  const [people, hosts] = await Promise.all([
    peopleUsage(tableSql(plan.table), query.range, query.userId),
    hostUsage(tableSql(plan.table), query.range, query.userId),
  ]);
  return { people, hosts };
}

async function utilizationSeries(
  t: TableSql,
  range: TimeRange,
  bucketMs: number,
  groupBy: UsageGroupBy,
  userId: string | undefined,
): Promise<UtilizationSeries> {
  const fromMs = floorTo(range.fromMs, bucketMs);
  const group =
    groupBy === "host"
      ? Prisma.raw(`COALESCE(h."name", r."hostId")`)
      : Prisma.raw(`COALESCE(g."name", 'unknown model')`);
  const rows = await db().$queryRaw<{ b: unknown; k: string; u: unknown; n: unknown }[]>`
    SELECT ${t.bucket(bucketMs)} AS b, ${group} AS k, SUM(${t.utilMinutes}) AS u, SUM(${t.utilCounted}) AS n
    FROM ${t.from}
    LEFT JOIN "Gpu" g ON g."uuid" = r."gpuUuid"
    LEFT JOIN "Host" h ON h."id" = r."hostId"
    WHERE ${whereRange(t, fromMs, range.toMs, userId)}
    GROUP BY 1, 2`;

  const labels = [...new Set(rows.map((row) => row.k))].sort((a, b) => a.localeCompare(b));
  const keyOf = new Map(labels.map((label, i) => [label, `s${i}`]));
  const byBucket = new Map<number, { total: number; sums: Map<string, number> }>();
  for (const row of rows) {
    const start = num(row.b) * 1000;
    const bucket = byBucket.get(start) ?? { total: 0, sums: new Map<string, number>() };
    bucket.total += num(row.n);
    bucket.sums.set(row.k, (bucket.sums.get(row.k) ?? 0) + num(row.u));
    byBucket.set(start, bucket);
  }
  const points = bucketStarts(fromMs, range.toMs, bucketMs).map((t) => {
    const point: { t: number } & Record<string, number | null> = { t };
    const bucket = byBucket.get(t);
    for (const label of labels) {
      // No GPU reported in this bucket: a gap, not a zero.
      point[keyOf.get(label)!] = bucket && bucket.total > 0 ? (bucket.sums.get(label) ?? 0) / bucket.total : null;
    }
    return point;
  });
  return { groups: labels.map((label) => ({ key: keyOf.get(label)!, label })), points };
}

async function utilizationHeatmap(t: TableSql, range: TimeRange, bucketMs: number, userId: string | undefined): Promise<UtilizationHeatmap> {
  const fromMs = floorTo(range.fromMs, bucketMs);
  const rows = await db().$queryRaw<{ gpu: string; b: unknown; u: unknown; n: unknown }[]>`
    SELECT r."gpuUuid" AS gpu, ${t.bucket(bucketMs)} AS b, SUM(${t.utilMinutes}) AS u, SUM(${t.utilCounted}) AS n
    FROM ${t.from}
    WHERE ${whereRange(t, fromMs, range.toMs, userId)}
    GROUP BY 1, 2`;
  const columns = bucketStarts(fromMs, range.toMs, bucketMs);
  const column = new Map(columns.map((start, i) => [start, i]));
  const uuids = [...new Set(rows.map((row) => row.gpu))];
  const gpus = await db().gpu.findMany({
    where: { uuid: { in: uuids } },
    select: { uuid: true, index: true, name: true, host: { select: { name: true } } },
  });
  const info = new Map(gpus.map((gpu) => [gpu.uuid, gpu]));
  const byGpu = new Map<string, HeatmapRow>();
  for (const uuid of uuids) {
    const gpu = info.get(uuid);
    byGpu.set(uuid, {
      gpuUuid: uuid,
      hostName: gpu?.host.name ?? "unknown host",
      gpuIndex: gpu?.index ?? null,
      model: gpu?.name ?? null,
      cells: columns.map(() => null),
    });
  }
  for (const row of rows) {
    const i = column.get(num(row.b) * 1000);
    const n = num(row.n);
    if (i !== undefined && n > 0) byGpu.get(row.gpu)!.cells[i] = num(row.u) / n;
  }
  const sorted = [...byGpu.values()].sort(
    (a, b) => a.hostName.localeCompare(b.hostName) || (a.gpuIndex ?? 1e9) - (b.gpuIndex ?? 1e9) || a.gpuUuid.localeCompare(b.gpuUuid),
  );
  return { columns, rows: sorted };
}

async function peopleUsage(t: TableSql, range: TimeRange, userId: string | undefined): Promise<PersonUsage[]> {
  const rows = await db().$queryRaw<{ holder: string | null; held: unknown; used: unknown; idle: unknown; gpus: unknown }[]>`
    SELECT r."holderUserId" AS holder, SUM(${t.minutes}) AS held, SUM(${t.utilMinutes}) AS used,
           SUM(${t.idleMinutes}) AS idle, COUNT(DISTINCT r."gpuUuid") AS gpus
    FROM ${t.from}
    WHERE ${whereRange(t, range.fromMs, range.toMs, userId)}
    GROUP BY 1`;
  const ids = rows.flatMap((row) => (row.holder && !row.holder.startsWith(SIMULATED_HOLDER_PREFIX) ? [row.holder] : []));
  const users = await db().user.findMany({ where: { id: { in: ids } }, select: { id: true, username: true, name: true } });
  const byId = new Map(users.map((user) => [user.id, user]));
  return rows
    .map((row): PersonUsage => {
      const held = num(row.held);
      const usedHours = hours(num(row.used) / 100);
      if (row.holder === null) {
        return {
          userId: null,
          label: "Not booked",
          username: null,
          simulated: false,
          bookedGpuHours: 0,
          usedGpuHours: usedHours,
          idleBookedGpuHours: 0,
          efficiencyPct: null,
          gpus: num(row.gpus),
        };
      }
      const simulated = row.holder.startsWith(SIMULATED_HOLDER_PREFIX);
      const user = byId.get(row.holder);
      const username = simulated ? row.holder.slice(SIMULATED_HOLDER_PREFIX.length) : (user?.username ?? null);
      return {
        userId: row.holder,
        label: simulated ? `${username} (simulated)` : (user?.name || user?.username || "deleted account"),
        username,
        simulated,
        bookedGpuHours: hours(held),
        usedGpuHours: usedHours,
        idleBookedGpuHours: hours(num(row.idle)),
        efficiencyPct: held > 0 ? (num(row.used) / held) : null,
        gpus: num(row.gpus),
      };
    })
    .sort((a, b) => (a.userId === null ? 1 : 0) - (b.userId === null ? 1 : 0) || b.bookedGpuHours - a.bookedGpuHours || a.label.localeCompare(b.label));
}

async function hostUsage(t: TableSql, range: TimeRange, userId: string | undefined): Promise<{ hosts: HostUsage[]; simulated: boolean }> {
  const rows = await db().$queryRaw<
    { host: string; name: string | null; gpus: unknown; reported: unknown; used: unknown; counted: unknown; booked: unknown; idle: unknown; busy: unknown; sim: unknown }[]
  >`
    SELECT r."hostId" AS host, MAX(h."name") AS name, COUNT(DISTINCT r."gpuUuid") AS gpus, SUM(${t.minutes}) AS reported,
           SUM(${t.utilMinutes}) AS used, SUM(${t.utilCounted}) AS counted,
           SUM(CASE WHEN r."holderUserId" IS NULL THEN 0 ELSE ${t.minutes} END) AS booked,
           SUM(CASE WHEN r."holderUserId" IS NULL THEN 0 ELSE ${t.idleMinutes} END) AS idle,
           SUM(${t.busyMinutes}) AS busy,
           SUM(CASE WHEN r."simulated" THEN 1 ELSE 0 END) AS sim
    FROM ${t.from}
    LEFT JOIN "Host" h ON h."id" = r."hostId"
    WHERE ${whereRange(t, range.fromMs, range.toMs, userId)}
    GROUP BY 1`;
  const hosts = rows
    .map((row): HostUsage => {
      const counted = num(row.counted);
      return {
        hostId: row.host,
        hostName: row.name ?? "removed host",
        gpus: num(row.gpus),
        reportedGpuHours: hours(num(row.reported)),
        usedGpuHours: hours(num(row.used) / 100),
        meanUtilPct: counted > 0 ? num(row.used) / counted : null,
        bookedGpuHours: hours(num(row.booked)),
        idleBookedGpuHours: hours(num(row.idle)),
        busyGpuHours: hours(num(row.busy)),
      };
    })
    .sort((a, b) => a.hostName.localeCompare(b.hostName));
  return { hosts, simulated: rows.some((row) => num(row.sim) > 0) };
}

function totalsOf(hosts: HostUsage[], people: PersonUsage[]): UsageTotals {
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const reported = sum(hosts.map((h) => h.reportedGpuHours));
  const used = sum(hosts.map((h) => h.usedGpuHours));
  const weighted = sum(hosts.map((h) => (h.meanUtilPct === null ? 0 : h.reportedGpuHours)));
  const booked = people.filter((p) => p.userId !== null);
  return {
    reportedGpuHours: reported,
    usedGpuHours: used,
    meanUtilPct: weighted > 0 ? (used / weighted) * 100 : null,
    bookedGpuHours: sum(booked.map((p) => p.bookedGpuHours)),
    usedWhileBookedGpuHours: sum(booked.map((p) => p.usedGpuHours)),
    idleBookedGpuHours: sum(booked.map((p) => p.idleBookedGpuHours)),
    unbookedUsedGpuHours: sum(people.filter((p) => p.userId === null).map((p) => p.usedGpuHours)),
  };
}
