import { isPartitioned, storedUnit, unitName } from "@/lib/domain/gpu-availability";
import type { TimeRange } from "@/lib/domain/usage-range";
import {
  SIMULATED_BOOKER_PREFIX,
  type HeatmapRow,
  type HostUsage,
  type PersonUsage,
  type UsageGroupBy,
  type UsageReport,
  type UsageTotals,
  type UtilizationHeatmap,
  type UtilizationSeries,
} from "@/lib/domain/usage-types";
import { db } from "@/server/core/db";
import { bucketStarts, planResolution, type RollupTable } from "@/server/history/resolution";
import { sumGpuTime } from "@/server/history/gpu-time";
import { floorTo } from "@/server/minutes/minute-row";
import { bookedRangesBy, personHostKey } from "@/server/bookings/rules/booked-ranges";
import { foldCells, type HeldTime, type UsageCell, usageCells } from "@/server/history/usage-cells";
import { handedBackTimes } from "@/server/history/handed-back";
import { gpuHoursOf, type GpuRange } from "@/server/bookings/rules/gpu-hours";
import { num } from "@/server/core/sql-dialect";
import { unitWeights } from "@/server/history/unit-weights";
import type { UnbookedPersonUsage } from "@/lib/domain/team-usage";
import { unbookedUseByPerson } from "@/server/history/unbooked-use";
import { leftOutBlocks } from "@/server/minutes/unreadable-blocks";

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
/** Percentages travel with two decimals: the page carries thousands of them. */
const round2 = (value: number) => Math.round(value * 100) / 100;

/**
 * Everything the usage page draws for one range: three sums over one
 * rollup table each (the stacked utilization series, the GPU × time
 * heatmap, and per bookedBy × GPU sums that the people and host tables
 * fold), GROUP BY queries over hours, the same sums in JS over decoded
 * minutes (`sumMinutes`). Host names and GPU labels come from small lookups
 * afterwards rather than joins on every row.
 */
export async function getUsageReport(query: UsageQuery): Promise<UsageReport> {
  const { range, groupBy, userId, nowMs, minuteRetentionMs } = query;
  const plan = planResolution(range.fromMs, range.toMs, nowMs, minuteRetentionMs);
  const [utilization, heatmap, tables] = await Promise.all([
    utilizationSeries(plan.table, range, plan.bucketMs, groupBy, userId),
    utilizationHeatmap(plan.heatmapTable, range, plan.heatmapBucketMs, userId),
    getUsageTables(query),
  ]);
  // After the sums: the blocks they could not read are noted by then.
  const minutesLeftOut = await leftOutBlocks(db(), range.fromMs, range.toMs);
  return {
    range: { ...range, bucketMs: plan.bucketMs, heatmapBucketMs: plan.heatmapBucketMs, source: plan.table },
    scope: userId === undefined ? "all" : "self",
    groupBy,
    includesSimulated: tables.simulated,
    utilization,
    heatmap,
    people: tables.people,
    hosts: tables.hosts,
    totals: tables.totals,
    minutesLeftOut,
  };
}

async function hostNames(ids: string[]): Promise<Map<string, string>> {
  const hosts = await db().host.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } });
  return new Map(hosts.map((host) => [host.id, host.name]));
}

async function utilizationSeries(
  table: RollupTable,
  range: TimeRange,
  bucketMs: number,
  groupBy: UsageGroupBy,
  userId: string | undefined,
): Promise<UtilizationSeries> {
  const fromMs = floorTo(range.fromMs, bucketMs);
  // By host: group on the id and name it afterwards. By model: the model lives on the Gpu row.
  const sums = await sumGpuTime({ table, fromMs, toMs: range.toMs, by: ["bucket", groupBy === "host" ? "host" : "model"], bucketMs, booker: userId, utilizationOnly: true });
  const rows = sums.map((sum) => ({ b: sum.bucketStartMs / 1000, k: groupBy === "host" ? sum.hostId : sum.model, u: sum.utilMinutes, n: sum.utilCounted }));
  const names = groupBy === "host" ? await hostNames([...new Set(rows.map((row) => row.k))]) : null;
  const labelOf = (k: string) => (names ? (names.get(k) ?? "removed host") : k);

  const labels = [...new Set(rows.map((row) => labelOf(row.k)))].sort((a, b) => a.localeCompare(b));
  const idOf = new Map(rows.map((row) => [labelOf(row.k), `${groupBy}:${row.k}`]));
  const keyOf = new Map(labels.map((label, i) => [label, `s${i}`]));
  const byBucket = new Map<number, { total: number; sums: Map<string, number> }>();
  for (const row of rows) {
    const start = num(row.b) * 1000;
    const bucket = byBucket.get(start) ?? { total: 0, sums: new Map<string, number>() };
    const label = labelOf(row.k);
    bucket.total += num(row.n);
    bucket.sums.set(label, (bucket.sums.get(label) ?? 0) + num(row.u));
    byBucket.set(start, bucket);
  }
  const points = bucketStarts(fromMs, range.toMs, bucketMs).map((start) => {
    const point: { t: number } & Record<string, number | null> = { t: start };
    const bucket = byBucket.get(start);
    for (const label of labels) {
      // No GPU reported in this bucket: a gap, not a zero.
      point[keyOf.get(label)!] = bucket && bucket.total > 0 ? round2((bucket.sums.get(label) ?? 0) / bucket.total) : null;
    }
    return point;
  });
  return { groups: labels.map((label) => ({ key: keyOf.get(label)!, label, id: idOf.get(label)! })), points };
}

async function utilizationHeatmap(table: RollupTable, range: TimeRange, bucketMs: number, userId: string | undefined): Promise<UtilizationHeatmap> {
  const fromMs = floorTo(range.fromMs, bucketMs);
  const rows = (await sumGpuTime({ table, fromMs, toMs: range.toMs, by: ["gpu", "bucket"], bucketMs, booker: userId, utilizationOnly: true })).map((sum) => ({
    gpu: sum.gpuUuid,
    b: sum.bucketStartMs / 1000,
    u: sum.utilMinutes,
    n: sum.utilCounted,
  }));
  const columns = bucketStarts(fromMs, range.toMs, bucketMs);
  const column = new Map(columns.map((start, i) => [start, i]));
  const uuids = [...new Set(rows.map((row) => row.gpu))];
  const gpus = await db().gpu.findMany({
    where: { uuid: { in: uuids } },
    select: { uuid: true, index: true, name: true, migMode: true, migDeviceIndex: true, migProfile: true, host: { select: { name: true } } },
  });
  const info = new Map(gpus.map((gpu) => [gpu.uuid, gpu]));
  const byGpu = new Map<string, HeatmapRow>();
  for (const uuid of uuids) {
    const gpu = info.get(uuid);
    byGpu.set(uuid, {
      gpuUuid: uuid,
      hostName: gpu?.host.name ?? "removed host",
      gpuIndex: gpu?.index ?? null,
      unit: gpu ? unitName(storedUnit(gpu)) : null,
      slice: gpu?.migDeviceIndex !== null && gpu?.migDeviceIndex !== undefined,
      // nvidia-smi reads no utilization per MIG slice, nor for a GPU while it is split.
      utilizationReported: gpu === undefined || (gpu.migDeviceIndex === null && !isPartitioned(gpu)),
      model: gpu?.name ?? null,
      cells: columns.map(() => null),
    });
  }
  for (const row of rows) {
    const i = column.get(num(row.b) * 1000);
    const n = num(row.n);
    if (i !== undefined && n > 0) byGpu.get(row.gpu)!.cells[i] = Math.round((num(row.u) / n) * 10) / 10;
  }
  // A split GPU's slices follow it, in MIG device order.
  const device = (row: HeatmapRow) => info.get(row.gpuUuid)?.migDeviceIndex ?? -1;
  const sorted = [...byGpu.values()].sort(
    (a, b) => a.hostName.localeCompare(b.hostName) || (a.gpuIndex ?? 1e9) - (b.gpuIndex ?? 1e9) || device(a) - device(b) || a.gpuUuid.localeCompare(b.gpuUuid),
  );
  return { columns, rows: sorted };
}

interface GpuTimeRow {
  bookedBy: string | null;
  host: string;
  gpu: string;
  minutes: unknown;
  used: unknown;
  counted: unknown;
  idle: unknown;
  busy: unknown;
  sim: unknown;
  /** Of `used`, what a MIG slice's process presence counts (not utilization): left out of mean utilization. */
  presence?: number;
}

/**
 * The rows in GPUs' worth: a MIG slice's minutes weigh its share of its GPU
 * (a 1g.10gb slice of an H100 1/7), and `gpu` names the physical GPU, so
 * that a split H100 counts one GPU of capacity, its slices' held and idle
 * minutes what they are worth, and the GPU once in the GPU counts (its
 * own rows while split are left out by `notWhileSliced`).
 *
 * A slice's minutes without utilization (nvidia-smi reports none per MIG
 * device) count as used while a process ran on it and idle otherwise, the
 * rule idle release judges slices by (server/bookings/rules/idle-rule.ts).
 */
async function weighted(rows: GpuTimeRow[]): Promise<GpuTimeRow[]> {
  const weightOf = await unitWeights([...new Set(rows.map((row) => row.gpu))]);
  return rows.map((row) => {
    const { share, gpu } = weightOf(row.gpu);
    if (share === 1 && gpu === row.gpu) return row;
    const unreported = Math.max(0, num(row.minutes) - num(row.counted));
    // Busy minutes are spread over the unreported ones first: a slice's readings have no utilization at all.
    const presentMinutes = Math.min(num(row.busy), unreported);
    const presence = presentMinutes * 100 * share;
    return {
      ...row,
      gpu,
      minutes: num(row.minutes) * share,
      used: num(row.used) * share + presence,
      counted: num(row.counted) * share,
      idle: (num(row.idle) + unreported - presentMinutes) * share,
      busy: num(row.busy) * share,
      presence,
    };
  });
}

/** GPU time per bookedBy, host and GPU (`sumGpuTime`), a split GPU's own time left out while its slices report. */
async function gpuTime(table: RollupTable, fromMs: number, toMs: number, userId: string | undefined): Promise<GpuTimeRow[]> {
  const sums = await sumGpuTime({ table, fromMs, toMs, by: ["booker", "host", "gpu"], booker: userId, notWhileSliced: true });
  return sums.map((sum) => ({
    bookedBy: sum.bookedByUserId,
    host: sum.hostId,
    gpu: sum.gpuUuid,
    minutes: sum.minutes,
    used: sum.utilMinutes,
    counted: sum.utilCounted,
    idle: sum.idleMinutes,
    busy: sum.busyMinutes,
    sim: sum.simulated,
  }));
}

/**
 * The people and host tables (also the CSV export): one sum of GPU
 * time per bookedBy and GPU (`gpuTime`), turned into one cell per person and host
 * (server/history/usage-cells.ts) that both tables and the totals fold.
 * Slices are weighed by their share of a GPU (`weighted`).
 */
export async function getUsageTables(query: UsageQuery): Promise<{ people: PersonUsage[]; hosts: HostUsage[]; totals: UsageTotals; simulated: boolean }> {
  const plan = planResolution(query.range.fromMs, query.range.toMs, query.nowMs, query.minuteRetentionMs);
  // Asked for together, so that over minutes both sums share one read of the blocks (minute-sums.ts).
  const [raw, unbooked] = await Promise.all([
    gpuTime(plan.table, query.range.fromMs, query.range.toMs, query.userId),
    unbookedUseByPerson({ ...query.range, nowMs: query.nowMs, minuteRetentionMs: query.minuteRetentionMs }),
  ]);
  const rows = await weighted(raw);
  const cells = await cellsOf(rows, query);
  const [people, hosts] = await Promise.all([peopleOf(cells.cells, cells.simulated), hostsOf(rows, cells.cells)]);
  const unbookedGpuHours = unbookedUseInScope(unbooked, query.userId);
  const withUnbooked = withUnbookedUse(people, unbooked, unbookedGpuHours, query.userId);
  return { people: withUnbooked, hosts, totals: totalsOf(hosts, cells.cells, unbookedGpuHours), simulated: rows.some((row) => num(row.sim) > 0) };
}

/**
 * The cells: booked GPU-hours per person and host from their bookings
 * through gpuHoursOf (what the limits count), up to now; for the simulated
 * fleet's demo people (synthetic history without bookings) the minutes
 * they held where those are more; what idle release handed back, by
 * releases in the range.
 */
async function cellsOf(rows: GpuTimeRow[], query: UsageQuery): Promise<{ cells: UsageCell[]; simulated: Set<string> }> {
  const { fromMs } = query.range;
  const untilMs = Math.min(query.range.toMs, query.nowMs);
  const bookers = [...new Set(rows.flatMap((row) => (row.bookedBy && !row.bookedBy.startsWith(SIMULATED_BOOKER_PREFIX) ? [row.bookedBy] : [])))];
  const [booked, simulatedUsers, handedBack] = await Promise.all([
    untilMs > fromMs ? bookedRangesBy(db(), "userHost", fromMs, untilMs, query.userId === undefined ? undefined : [query.userId]) : new Map<string | null, GpuRange[]>(),
    bookers.length > 0 ? db().user.findMany({ where: { id: { in: bookers }, simulated: true }, select: { id: true } }) : [],
    handedBackTimes(fromMs, query.range.toMs, query.userId),
  ]);
  const simulated = new Set([...simulatedUsers.map((user) => user.id), ...rows.flatMap((row) => (row.bookedBy?.startsWith(SIMULATED_BOOKER_PREFIX) ? [row.bookedBy] : []))]);
  const held: HeldTime[] = rows.map((row) => ({
    bookedBy: row.bookedBy,
    host: row.host,
    gpu: row.gpu,
    minutes: num(row.minutes),
    utilMinutes: num(row.used),
    idleMinutes: num(row.idle),
    busyMinutes: num(row.busy),
  }));
  const seen = new Set(held.flatMap((row) => (row.bookedBy === null ? [] : [personHostKey(row.bookedBy, row.host)])));
  const bookedOnly = [...booked.keys()].flatMap((key) => {
    if (key === null || seen.has(key)) return [];
    const [bookedBy, host] = key.split("\u0000") as [string, string];
    return [{ bookedBy, host }];
  });
  const bookedHours = (bookedBy: string, host: string) => ({ hours: gpuHoursOf(booked.get(personHostKey(bookedBy, host)) ?? [], fromMs, untilMs), synthetic: simulated.has(bookedBy) });
  return { cells: usageCells(held, bookedHours, bookedOnly, handedBack), simulated };
}

/**
 * Use without a booking, in GPU-hours: the one figure the top card, the
 * "Not booked" row's used hours and the column's sum all are. Busy minutes
 * (a process on the unit) on units nobody had booked, a slice by its share
 * (server/history/unbooked-use.ts), not utilization-weighted: a job that
 * holds a GPU nobody booked uses it however hard it computes. A member's
 * own page counts only theirs.
 */
export function unbookedUseInScope(unbooked: readonly UnbookedPersonUsage[], userId: string | undefined): number {
  return unbooked.filter((row) => userId === undefined || row.userId === userId).reduce((sum, row) => sum + row.usedWithoutBookingGpuHours, 0);
}

/**
 * Each person's use without a booking (server/history/unbooked-use.ts) as a
 * column of the people table, with a row of their own for people who only
 * used GPUs nobody had booked, and what nobody could be named for on the
 * "Not booked" row, so that the column sums to the top card; the "Not
 * booked" row's used hours are that same total (`unbookedUseInScope`). A
 * member's own page shows only theirs.
 */
function withUnbookedUse(people: PersonUsage[], unbooked: UnbookedPersonUsage[], unbookedGpuHours: number, userId: string | undefined): PersonUsage[] {
  const byId = new Map(unbooked.filter((row) => row.userId !== null).map((row) => [row.userId as string, row]));
  const unnamed = unbooked.filter((row) => row.userId === null && row.login === null).reduce((sum, row) => sum + row.usedWithoutBookingGpuHours, 0);
  const rows = people.map((person) =>
    person.userId === null ? { ...person, usedGpuHours: unbookedGpuHours, usedWithoutBookingGpuHours: unnamed } : { ...person, usedWithoutBookingGpuHours: byId.get(person.userId)?.usedWithoutBookingGpuHours ?? 0 },
  );
  const listed = new Set(people.map((person) => person.userId));
  const extra = unbooked
    .filter((row) => (userId === undefined ? !listed.has(row.userId) : row.userId === userId && !listed.has(userId)))
    .filter((row) => row.userId !== null || row.login !== null)
    .map((row): PersonUsage => ({ ...NOT_BOOKED, userId: row.userId ?? `login:${row.login}`, label: row.label, username: row.login, usedWithoutBookingGpuHours: row.usedWithoutBookingGpuHours }));
  const notBooked = rows.filter((person) => person.userId === null);
  if (notBooked.length === 0 && unnamed > 0 && userId === undefined) {
    notBooked.push({ ...NOT_BOOKED, usedGpuHours: unbookedGpuHours, usedWithoutBookingGpuHours: unnamed });
  }
  return [...rows.filter((person) => person.userId !== null), ...extra, ...notBooked];
}

const NOT_BOOKED: PersonUsage = {
  userId: null,
  label: "Not booked",
  username: null,
  simulated: false,
  bookedGpuHours: 0,
  usedGpuHours: 0,
  idleBookedGpuHours: 0,
  unknownGpuHours: 0,
  efficiencyPct: null,
  gpus: 0,
  handedBackGpuHours: 0,
  handedBackReleases: 0,
};

/**
 * The people table: each person's cells summed. Efficiency is used over
 * the booked time that was seen: hours without readings are unknown, not
 * idle and not unused.
 */
async function peopleOf(cells: UsageCell[], simulatedIds: Set<string>): Promise<PersonUsage[]> {
  const byBooker = foldCells(cells, (cell) => cell.bookedBy);
  const ids = [...byBooker.keys()].flatMap((id) => (id && !id.startsWith(SIMULATED_BOOKER_PREFIX) ? [id] : []));
  const users = await db().user.findMany({ where: { id: { in: ids } }, select: { id: true, username: true, name: true, simulated: true } });
  const byId = new Map(users.map((user) => [user.id, user]));
  return [...byBooker.entries()]
    .map(([bookedBy, sums]): PersonUsage => {
      if (bookedBy === null) {
        // GPU time nobody had booked: only its use means something, and that is use without a booking (withUnbookedUse).
        return { ...NOT_BOOKED, gpus: sums.gpus.size };
      }
      const user = byId.get(bookedBy);
      // The simulated fleet's people: its demo accounts, or (without one) their bare logins.
      const simulated = simulatedIds.has(bookedBy);
      const username = user ? (user.username ?? null) : simulated ? bookedBy.slice(SIMULATED_BOOKER_PREFIX.length) : null;
      return {
        userId: bookedBy,
        label: user ? user.name || user.username || "deleted account" : simulated ? `${username} (simulated)` : "deleted account",
        username,
        simulated,
        bookedGpuHours: sums.bookedGpuHours,
        usedGpuHours: sums.usedGpuHours,
        idleBookedGpuHours: sums.idleBookedGpuHours,
        unknownGpuHours: sums.unknownGpuHours,
        efficiencyPct: sums.seenGpuHours > 0 ? (sums.usedGpuHours / sums.seenGpuHours) * 100 : null,
        gpus: sums.gpus.size,
        handedBackGpuHours: sums.handedBackGpuHours,
        handedBackReleases: sums.handedBackReleases,
      };
    })
    .sort((a, b) => (a.userId === null ? 1 : 0) - (b.userId === null ? 1 : 0) || b.bookedGpuHours - a.bookedGpuHours || a.label.localeCompare(b.label));
}

/**
 * The hosts table: readings (reported, used, utilization, busy) from every
 * minute of the host, booked, idle and unknown from its cells, the same
 * cells the people table sums.
 */
async function hostsOf(rows: GpuTimeRow[], cells: UsageCell[]): Promise<HostUsage[]> {
  const byHostCells = foldCells(cells, (cell) => cell.host);
  const empty = () => ({ gpus: new Set<string>(), reported: 0, used: 0, presence: 0, counted: 0, busy: 0 });
  const byHost = new Map<string, ReturnType<typeof empty>>();
  for (const row of rows) {
    const sums = byHost.get(row.host) ?? empty();
    sums.gpus.add(row.gpu);
    sums.reported += num(row.minutes);
    sums.used += num(row.used);
    sums.presence += row.presence ?? 0;
    sums.counted += num(row.counted);
    sums.busy += num(row.busy);
    byHost.set(row.host, sums);
  }
  for (const hostId of byHostCells.keys()) if (!byHost.has(hostId)) byHost.set(hostId, empty());
  const names = await hostNames([...byHost.keys()]);
  return [...byHost.entries()]
    .map(([hostId, sums]): HostUsage => {
      const booked = byHostCells.get(hostId);
      return {
        hostId,
        hostName: names.get(hostId) ?? "removed host",
        gpus: sums.gpus.size,
        reportedGpuHours: hours(sums.reported),
        usedGpuHours: hours(sums.used / 100),
        // A slice's process presence counts as used, not as utilization.
        meanUtilPct: sums.counted > 0 ? (sums.used - sums.presence) / sums.counted : null,
        bookedGpuHours: booked?.bookedGpuHours ?? 0,
        idleBookedGpuHours: booked?.idleBookedGpuHours ?? 0,
        unknownGpuHours: booked?.unknownGpuHours ?? 0,
        busyGpuHours: hours(sums.busy),
        handedBackGpuHours: booked?.handedBackGpuHours ?? 0,
      };
    })
    .sort((a, b) => a.hostName.localeCompare(b.hostName));
}

/** The top cards: the hosts' readings, the same cells the tables fold for booked, idle, unknown and handed back, and use without a booking (`unbookedUseInScope`). */
function totalsOf(hosts: HostUsage[], cells: UsageCell[], unbookedGpuHours: number): UsageTotals {
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const reported = sum(hosts.map((h) => h.reportedGpuHours));
  const used = sum(hosts.map((h) => h.usedGpuHours));
  const weighted = sum(hosts.map((h) => (h.meanUtilPct === null ? 0 : h.reportedGpuHours)));
  const all = foldCells(cells.filter((cell) => cell.bookedBy !== null), () => "all").get("all");
  return {
    reportedGpuHours: reported,
    usedGpuHours: used,
    meanUtilPct: weighted > 0 ? (used / weighted) * 100 : null,
    bookedGpuHours: all?.bookedGpuHours ?? 0,
    usedWhileBookedGpuHours: all?.usedGpuHours ?? 0,
    idleBookedGpuHours: all?.idleBookedGpuHours ?? 0,
    unknownGpuHours: all?.unknownGpuHours ?? 0,
    seenBookedGpuHours: all?.seenGpuHours ?? 0,
    unbookedUsedGpuHours: unbookedGpuHours,
    handedBackGpuHours: all?.handedBackGpuHours ?? 0,
    handedBackReleases: all?.handedBackReleases ?? 0,
  };
}
