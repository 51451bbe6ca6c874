/**
 * How fast the usage page's figures answer over a year of history as
 * retention leaves it (30 days of minute blocks, 365 days of hours), on
 * SQLite and PostgreSQL, against the goals of issue 52: every range ≤ 300 ms
 * at 160 GPUs, ≤ 1 s at 1,000 GPUs; the efficiency of 200 bookings ≤ 100 ms.
 * Each range is one `getUsageReport` (series, heatmap, people and host tables
 * and use without a booking together, as the page asks). Prints figures;
 * not a timed test.
 *
 *   npx tsx scripts/bench-usage.ts [--database sqlite|postgresql|both] [--gpus 160,1000] [--days 365] [--runs 3] [--keep]
 *
 * The fill: one day of the simulated fleet through the `--demo-history`
 * fill (Prisma, one reading a minute), then copied back day by day (doubling)
 * to 30 days of minutes and `--days` of hours: as many rows as a fleet that
 * ran that long, with that day's values. Then 200 bookings of 6 hours over
 * the last 30 days. PostgreSQL: a new database on GPUDESK_TEST_POSTGRES_URL's
 * server (default postgresql://postgres@127.0.0.1:5432/postgres), dropped at
 * the end unless --keep. Each range is measured twice on the same history:
 * from the hours alone (no day summed, as before the day tier), then after
 * the retention job's backfill of the day tier (timed); `--day-tier-only`
 * skips the first. Results: bench-results/<time>-usage-<database>-<gpus>.json.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { RangeChoice } from "@/lib/domain/usage-range";
import { argsOrExit, flag } from "./bench/args";
import { benchDatabase, type BenchDatabase, copyRowsBack, registerSimulatedFleet } from "./bench/history-db";

/** The page's presets; 90 and 365 days are asked as custom ranges. */
const PRESETS = new Set(["1h", "24h", "7d", "30d"]);

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;
const MINUTE_DAYS = 30;

const USAGE = "usage: npx tsx scripts/bench-usage.ts [--database sqlite|postgresql|both] [--gpus 160,1000] [--days 365] [--runs 3] [--keep] [--day-tier-only]";
const { flags: args } = argsOrExit(
  process.argv.slice(2),
  {
    database: flag.choice(["sqlite", "postgresql", "both"], "both"),
    gpus: flag.wholes([160, 1000], { min: 1, max: 2048 }),
    days: flag.whole(365, { min: 1, max: 730 }),
    runs: flag.whole(3, { min: 1, max: 50 }),
    keep: flag.boolean(),
    dayTierOnly: flag.boolean(),
  },
  USAGE,
);

if (args.database === "both" || args.gpus.length > 1) {
  // One process per database and fleet: the server's configuration (DATABASE_URL) is read once per process.
  for (const database of args.database === "both" ? ["sqlite", "postgresql"] : [args.database]) {
    for (const gpus of args.gpus) {
      const passed = ["--database", database, "--gpus", String(gpus), "--days", String(args.days), "--runs", String(args.runs), ...(args.keep ? ["--keep"] : []), ...(args.dayTierOnly ? ["--day-tier-only"] : [])];
      const result = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...passed], { stdio: "inherit" });
      if (result.status !== 0) process.exit(result.status ?? 1);
    }
  }
  process.exit(0);
}

/** The one database of this process (a run of both spawned one process each, above). */
const database = args.database as BenchDatabase;
const gpuCount = args.gpus[0]!;
const bench = benchDatabase(database, "bench-usage");
const { url } = bench;

function median(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Wall time of each run, and this process's CPU time (user + system): on a
 * shared machine the wall time waits for other work, the CPU time does not
 * (SQLite runs in this process; PostgreSQL's own CPU is not in it).
 */
async function timed<T>(runs: number, work: () => Promise<T>): Promise<{ first: number; median: number; max: number; cpuMedian: number; last: T }> {
  const times: number[] = [];
  const cpu: number[] = [];
  let last: T | undefined;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    last = await work();
    const used = process.cpuUsage(cpuStart);
    times.push(Math.round((performance.now() - start) * 10) / 10);
    cpu.push(Math.round((used.user + used.system) / 100) / 10);
  }
  return { first: times[0]!, median: median(times), max: Math.max(...times), cpuMedian: median(cpu), last: last! };
}

async function main(): Promise<void> {
  await bench.create();
  const { migrateDatabase } = await import("@/server/core/migrate");
  const { fillDemoHistory } = await import("@/server/history/demo-history");
  const { db, disconnectDb } = await import("@/server/core/db");
  const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repoRoot, encoding: "utf8" }).stdout.trim();
  const header = `usage queries, ${args.database}, ${gpuCount} GPUs, ${args.days} days, commit ${commit}, ${new Date().toISOString()}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")} on ${os.cpus().length} cores`;
  console.log(header);
  const results: Record<string, unknown> = { database: args.database, gpus: gpuCount, days: args.days, runs: args.runs, commit, startedAt: new Date().toISOString(), loadBefore: os.loadavg() };
  try {
    await migrateDatabase(url, repoRoot);
    const nowMs = Math.floor(Date.now() / 60_000) * 60_000;
    const { specs, hostIds } = await registerSimulatedFleet(gpuCount, nowMs);
    let started = performance.now();
    await fillDemoHistory({ specs, seed: 42, hostIds, fromMs: nowMs - DAY_MS, toMs: nowMs, samplesPerMinute: 1 });
    const daySeconds = (performance.now() - started) / 1000;
    started = performance.now();
    await copyRowsBack(database, "GpuMinuteBlock", nowMs, DAY_MS, nowMs - MINUTE_DAYS * DAY_MS);
    await copyRowsBack(database, "GpuHour", nowMs, DAY_MS, nowMs - args.days * DAY_MS);
    const fill = { daySeconds: Math.round(daySeconds), copySeconds: Math.round((performance.now() - started) / 1000), minuteBlocks: await db().gpuMinuteBlock.count(), hourRows: await db().gpuHour.count() };
    results.fill = fill;
    console.log(`filled a day in ${fill.daySeconds} s, copied back in ${fill.copySeconds} s: ${fill.minuteBlocks.toLocaleString("en")} minute blocks, ${fill.hourRows.toLocaleString("en")} hour rows`);

    const user = await db().user.create({ data: { id: "bench-user", name: "Bench", email: "bench@example.test", username: "benchuser" } });
    const gpuRows = await db().gpu.findMany({ select: { id: true, hostId: true }, orderBy: { uuid: "asc" } });
    for (let i = 0; i < 200; i++) {
      const gpu = gpuRows[i % gpuRows.length]!;
      const startsAt = new Date(nowMs - MINUTE_DAYS * DAY_MS + i * ((MINUTE_DAYS * DAY_MS) / 200));
      const endsAt = new Date(startsAt.getTime() + 6 * HOUR_MS);
      await db().reservation.create({ data: { userId: user.id, hostId: gpu.hostId, startsAt, endsAt, purpose: `bench ${i}`, gpus: { create: [{ gpuId: gpu.id, startsAt, endsAt }] } } });
    }

    const { getUsageReport } = await import("@/server/history/usage-report");
    const { bookingEfficiency } = await import("@/server/history/booking-efficiency");
    const { sumDays } = await import("@/server/history/day-tier");
    const goalMs = gpuCount <= 160 ? 300 : 1000;
    const ids = (await db().reservation.findMany({ select: { id: true } })).map((row) => row.id);
    /** Every range and the efficiency, as the database now answers them. */
    const measure = async (label: string) => {
      const table: Record<string, unknown> = {};
      console.log(`\n${label}: ms over ${args.runs} runs: wall first / median / max, CPU median, the median against the goal`);
      for (const [choice, span] of [["1h", HOUR_MS], ["24h", DAY_MS], ["7d", 7 * DAY_MS], ["30d", 30 * DAY_MS], ["90d", 90 * DAY_MS], ["365d", 365 * DAY_MS]] as const) {
        if (span > args.days * DAY_MS) continue;
        const t = await timed(args.runs, () => getUsageReport({ range: { choice: PRESETS.has(choice) ? (choice as RangeChoice) : "custom", fromMs: nowMs - span, toMs: nowMs }, groupBy: "host", nowMs, minuteRetentionMs: MINUTE_DAYS * DAY_MS }));
        const met = t.median <= goalMs;
        table[`report ${choice}`] = { first: t.first, median: t.median, max: t.max, cpuMedian: t.cpuMedian, goalMs, met, source: t.last.range.source, reportedGpuHours: t.last.totals.reportedGpuHours };
        console.log(`  usage report ${choice.padEnd(5)} ${String(t.first).padStart(8)} / ${String(t.median).padStart(8)} / ${String(t.max).padStart(8)}   cpu ${String(t.cpuMedian).padStart(7)}   goal ${goalMs} ms: ${met ? "met" : "NOT met"}   (${t.last.range.source} rollups, ${t.last.heatmap.rows.length}×${t.last.heatmap.columns.length} heatmap)`);
      }
      const t = await timed(args.runs, () => bookingEfficiency(ids));
      table["efficiency of 200 bookings"] = { first: t.first, median: t.median, max: t.max, cpuMedian: t.cpuMedian, goalMs: 100, met: t.median <= 100 };
      console.log(`  efficiency of ${ids.length} bookings ${String(t.first).padStart(5)} / ${String(t.median).padStart(8)} / ${String(t.max).padStart(8)}   cpu ${String(t.cpuMedian).padStart(7)}   goal 100 ms: ${t.median <= 100 ? "met" : "NOT met"}`);
      return table;
    };
    // The same history read twice, in the same conditions: from the hours alone (as before the day tier), then with every complete day summed.
    if (!args.dayTierOnly) results.hoursAlone = await measure("hours alone (no day summed)");
    started = performance.now();
    const days = await sumDays(nowMs);
    const daySums = { days, seconds: Math.round((performance.now() - started) / 100) / 10, dayRows: await db().gpuDay.count(), slotRows: await db().gpuSlot.count(), monthRows: await db().gpuMonth.count() };
    results.daySums = daySums;
    console.log(
      `\nsummed ${days} days in ${daySums.seconds} s (the retention job's backfill): ${daySums.dayRows.toLocaleString("en")} day rows, ${daySums.slotRows.toLocaleString("en")} slot rows, ${daySums.monthRows.toLocaleString("en")} month rows`,
    );
    results.queries = await measure("with the day tier");
    results.loadAfter = os.loadavg();
    console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
    const out = path.join(repoRoot, "bench-results");
    mkdirSync(out, { recursive: true });
    const file = path.join(out, `${new Date().toISOString().slice(0, 16).replace(/:/g, "-")}-usage-${args.database}-${gpuCount}.json`);
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`results: ${path.relative(repoRoot, file)}`);
  } finally {
    await disconnectDb();
    await bench.remove(args.keep);
  }
}

await main();
