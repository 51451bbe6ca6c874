/**
 * Where a usage report's time goes, part by part, on a database a bench
 * kept (`npx tsx scripts/bench-usage.ts … --keep`): for each range, the
 * series, the heatmap, the tables' GPU-time sum and use without a booking,
 * each asked alone, then the whole report (ms wall and CPU, median of
 * `--runs`). `--sum` first applies this checkout's migrations and sums the
 * tiers that are not (day-tier.ts's `sumDays`, timed). Prints figures; not
 * a test.
 *
 *   npx tsx scripts/bench/usage-parts.ts --url file:/tmp/…/gpudesk.db [--runs 3] [--ranges 1h,24h,7d,30d,90d,365d] [--sum]
 */
import { argsOrExit, flag } from "./args";

const USAGE = "usage: npx tsx scripts/bench/usage-parts.ts --url DATABASE_URL [--runs 3] [--ranges 1h,24h,7d,30d,90d,365d] [--sum]";
const { flags: args } = argsOrExit(
  process.argv.slice(2),
  { url: flag.text(null), runs: flag.whole(3, { min: 1, max: 50 }), ranges: flag.text("1h,24h,7d,30d,90d,365d"), sum: flag.boolean() },
  USAGE,
);
if (!args.url) {
  console.error(USAGE);
  process.exit(2);
}
process.env.DATABASE_URL = args.url;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const SPANS: Record<string, number> = { "1h": HOUR_MS, "24h": DAY_MS, "7d": 7 * DAY_MS, "30d": 30 * DAY_MS, "90d": 90 * DAY_MS, "365d": 365 * DAY_MS };

const { db, disconnectDb } = await import("@/server/core/db");
const { sumGpuTime } = await import("@/server/history/gpu-time");
const { planResolution } = await import("@/server/history/resolution");
const { getUsageReport } = await import("@/server/history/usage-report");
const { floorTo } = await import("@/server/minutes/minute-row");

async function timed(work: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < args.runs; i++) {
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    await work();
    const used = process.cpuUsage(cpuStart);
    walls.push(performance.now() - start);
    cpus.push((used.user + used.system) / 1000);
  }
  const mid = (values: number[]) => Math.round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!);
  return { wall: mid(walls), cpu: mid(cpus) };
}

if (args.sum) {
  // Before the first query: a migration beside an open connection is no migration.
  const { migrateDatabase } = await import("@/server/core/migrate");
  await migrateDatabase(args.url, process.cwd());
}
try {
  const last = await db().gpuHour.findFirst({ orderBy: { hour: "desc" }, select: { hour: true } });
  const nowMs = last!.hour.getTime() + HOUR_MS;
  const minuteRetentionMs = 30 * DAY_MS;
  if (args.sum) {
    const { sumDays } = await import("@/server/history/day-tier");
    const started = performance.now();
    const days = await sumDays(nowMs);
    console.log(`summed ${days} days in ${Math.round(performance.now() - started)} ms`);
  }
  console.log(`ms wall / CPU, median of ${args.runs}; now ${new Date(nowMs).toISOString()}`);
  console.log(["range", "series", "heatmap", "tables", "unbooked", "report"].map((s) => s.padEnd(14)).join(""));
  for (const name of args.ranges.split(",")) {
    const fromMs = nowMs - SPANS[name]!;
    const plan = planResolution(fromMs, nowMs, nowMs, minuteRetentionMs);
    const parts = {
      series: () => sumGpuTime({ table: plan.table, fromMs: floorTo(fromMs, plan.bucketMs), toMs: nowMs, by: ["bucket", "host"], bucketMs: plan.bucketMs, utilizationOnly: true }),
      heatmap: () => sumGpuTime({ table: plan.heatmapTable, fromMs: floorTo(fromMs, plan.heatmapBucketMs), toMs: nowMs, by: ["gpu", "bucket"], bucketMs: plan.heatmapBucketMs, utilizationOnly: true }),
      tables: () => sumGpuTime({ table: plan.table, fromMs, toMs: nowMs, by: ["booker", "host", "gpu"], notWhileSliced: true }),
      unbooked: () => sumGpuTime({ table: plan.table, fromMs, toMs: nowMs, by: ["runner", "gpu"], unbooked: true, notWhileSliced: true }),
      report: () => getUsageReport({ range: { choice: "custom", fromMs, toMs: nowMs }, groupBy: "host", nowMs, minuteRetentionMs }),
    };
    const cells = [name];
    for (const work of Object.values(parts)) {
      const t = await timed(work);
      cells.push(`${t.wall} / ${t.cpu}`);
    }
    console.log(cells.map((s) => s.padEnd(14)).join(""));
  }
} finally {
  await disconnectDb();
}
