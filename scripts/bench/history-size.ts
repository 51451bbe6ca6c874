/**
 * How much room the usage history takes, and what its pruning costs the
 * event loop: a fresh database gets a week of minute rollups (packed by
 * GPU-hour, server/minutes/minute-block.ts) of a simulated fleet (the `--demo-history` fill, through Prisma), is measured, then is
 * grown to what a year of running with the default retention leaves (30
 * days of minutes plus one more day due for pruning, a year of hours: the
 * week's rows repeated at whole weeks back), pruned by the real
 * `pruneHistory` while a stand-in for /api/health is probed (and, for
 * comparison, probed as long with nothing running), and measured again.
 * Prints figures; not a timed test.
 *
 *   npx tsx scripts/bench/history-size.ts [--database sqlite|postgresql|both] [--gpus 160] [--keep]
 *
 * PostgreSQL: a new database on GPUDESK_TEST_POSTGRES_URL's server
 * (default postgresql://postgres@127.0.0.1:5432/postgres), dropped at the
 * end unless --keep. The probe listens on PROBE_PORT (default 4990).
 */
import { spawn, spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { createServer } from "node:http";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { argsOrExit, flag } from "./args";
import { benchDatabase, type BenchDatabase, copyRowsBack, registerSimulatedFleet, withPostgres } from "./history-db";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;
const WEEK_MS = 7 * DAY_MS;
const MB = 1e6;

const USAGE = "usage: npx tsx scripts/bench/history-size.ts [--database sqlite|postgresql|both] [--gpus 160] [--keep]";
const { flags: args } = argsOrExit(
  process.argv.slice(2),
  { database: flag.choice(["sqlite", "postgresql", "both"], "both"), gpus: flag.whole(160, { min: 1, max: 2048 }), keep: flag.boolean() },
  USAGE,
);

if (args.database === "both") {
  // One process per database: the server's configuration (DATABASE_URL) is read once per process.
  for (const database of ["sqlite", "postgresql"]) {
    const passed = ["--gpus", String(args.gpus), ...(args.keep ? ["--keep"] : []), "--database", database];
    const result = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...passed], { stdio: "inherit" });
    if (result.status !== 0) process.exit(result.status ?? 1);
  }
  process.exit(0);
}

/** The one database of this process (a run of both spawned one process each, above). */
const database = args.database as BenchDatabase;
const bench = benchDatabase(database, "history-size");
const { url } = bench;

const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
const line = (label: string, value: string) => console.log(`  ${label.padEnd(44)} ${value}`);

/** Bytes on disk, in all and per table and index. SQLite: after a checkpoint, so the WAL is in the file. */
async function measure(title: string): Promise<number> {
  const { db } = await import("@/server/core/db");
  const { readMinutePages } = await import("@/server/minutes/minute-store");
  let minutes = 0;
  for await (const page of readMinutePages(db(), 0, Date.UTC(2100, 0, 1))) minutes += page.length;
  const counts = { minutes, blocks: await db().gpuMinuteBlock.count(), hours: await db().gpuHour.count() };
  console.log(`\n${title}: ${counts.minutes.toLocaleString("en")} GPU-minutes in ${counts.blocks.toLocaleString("en")} minute blocks, ${counts.hours.toLocaleString("en")} hour rows`);
  if (args.database === "sqlite") {
    await db().$queryRawUnsafe("PRAGMA wal_checkpoint(TRUNCATE)");
    const sqlite = new Database(bench.sqliteFile, { readonly: true });
    try {
      const pageSize = sqlite.pragma("page_size", { simple: true }) as number;
      const free = (sqlite.pragma("freelist_count", { simple: true }) as number) * pageSize;
      const file = statSync(bench.sqliteFile).size;
      line("file", `${mb(file)} (${mb(file - free)} in use, ${mb(free)} free pages kept for reuse)`);
      const parts = sqlite.prepare(`SELECT name, SUM(pgsize) AS bytes FROM dbstat WHERE name LIKE '%GpuMinute%' OR name LIKE '%GpuHour%' GROUP BY name ORDER BY bytes DESC`).all() as { name: string; bytes: number }[];
      for (const part of parts) line(part.name, `${mb(part.bytes)}${perRow(part.name, part.bytes, counts)}`);
      return file;
    } finally {
      sqlite.close();
    }
  }
  return withPostgres(async (client) => {
    const size = Number((await client.query("SELECT pg_database_size(current_database()) AS b")).rows[0].b);
    line("pg_database_size", mb(size));
    const parts = await client.query<{ name: string; bytes: string }>(`
      SELECT c.relname AS name, pg_relation_size(c.oid) AS bytes FROM pg_class c
      WHERE c.relname LIKE 'GpuMinute%' OR c.relname LIKE 'GpuHour%' ORDER BY 2 DESC`);
    for (const part of parts.rows) line(part.name, `${mb(Number(part.bytes))}${perRow(part.name, Number(part.bytes), counts)}`);
    return size;
  }, url);
}

function perRow(name: string, bytes: number, counts: { minutes: number; blocks: number; hours: number }): string {
  if (name.includes("GpuMinuteBlock")) return counts.blocks > 0 ? `, ${(bytes / counts.blocks).toFixed(0)} B a block, ${(bytes / counts.minutes).toFixed(1)} B a GPU-minute` : "";
  if (name.includes("GpuMinute")) return "";
  return counts.hours > 0 ? `, ${(bytes / counts.hours).toFixed(0)} B a row` : "";
}

/** A time as a literal of the database's DateTime column (SQLite: the ISO text Prisma's adapter writes). */
/** A stand-in for /api/health (which reads no database for an anonymous caller): how long the event loop keeps it waiting. */
async function probeWhile<T>(work: () => Promise<T>): Promise<{ result: T; loopMaxMs: number; loopP99Ms: number; probes: number; probeMaxMs: number; probeP99Ms: number }> {
  const port = Number(process.env.PROBE_PORT ?? 4990);
  const server = createServer((_, res) => res.end('{"ok":true}'));
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  // The prober is its own process, so that its clock is not the one being blocked.
  const prober = spawn(process.execPath, ["-e", `
    const times = [];
    let stop = false;
    process.on("message", () => { stop = true; });
    (async () => {
      while (!stop) {
        const start = performance.now();
        await fetch("http://127.0.0.1:${port}/api/health").then((r) => r.text()).catch(() => null);
        times.push(performance.now() - start);
        await new Promise((r) => setTimeout(r, 20));
      }
      process.send(times, () => process.exit(0));
    })();`], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const result = await work();
  loop.disable();
  const times = await new Promise<number[]>((resolve) => {
    prober.once("message", (message) => resolve(message as number[]));
    prober.send("stop");
  });
  server.close();
  const sorted = times.sort((a, b) => a - b);
  return {
    result,
    loopMaxMs: loop.max / 1e6,
    loopP99Ms: loop.percentile(99) / 1e6,
    probes: sorted.length,
    probeMaxMs: sorted.at(-1) ?? 0,
    probeP99Ms: sorted[Math.floor(sorted.length * 0.99)] ?? 0,
  };
}

async function main(): Promise<void> {
  await bench.create();
  const { migrateDatabase } = await import("@/server/core/migrate");
  const { fillDemoHistory } = await import("@/server/history/demo-history");
  const { pruneHistory } = await import("@/server/history/retention");
  const { disconnectDb } = await import("@/server/core/db");
  const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repoRoot, encoding: "utf8" }).stdout.trim();
  console.log(`history size, ${args.database}, ${args.gpus} GPUs, commit ${commit}, ${new Date().toISOString()}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")} on ${os.cpus().length} cores`);
  try {
    await migrateDatabase(url, repoRoot);
    const nowMs = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
    const { specs, hostIds } = await registerSimulatedFleet(args.gpus, nowMs);
    const started = performance.now();
    await fillDemoHistory({ specs, seed: 42, hostIds, fromMs: nowMs - WEEK_MS, toMs: nowMs, samplesPerMinute: 1 });
    console.log(`filled a week of minutes and hours in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    const week = await measure("a week of minute detail");

    // A year of running: 31 days of minutes (the last one due for pruning) and 365 days of hours.
    await copyRowsBack(database, "GpuMinuteBlock", nowMs, WEEK_MS, nowMs - 31 * DAY_MS);
    await copyRowsBack(database, "GpuHour", nowMs, WEEK_MS, nowMs - 365 * DAY_MS);
    await measure("before pruning: 31 days of minutes, 365 days of hours");
    // The same probes while nothing runs: what the machine and the process alone cost the loop.
    const idle = await probeWhile(() => new Promise((resolve) => setTimeout(resolve, 8_000)));
    console.log(
      `\nidle, for comparison (8 s): event loop delay max ${idle.loopMaxMs.toFixed(0)} ms, p99 ${idle.loopP99Ms.toFixed(0)} ms;` +
        ` health probe (${idle.probes} requests) max ${idle.probeMaxMs.toFixed(0)} ms, p99 ${idle.probeP99Ms.toFixed(0)} ms`,
    );
    const pruned = await probeWhile(async () => {
      const start = performance.now();
      const result = await pruneHistory(new Date(nowMs), { minuteDays: 30, hourDays: 365 });
      return { ...result, seconds: (performance.now() - start) / 1000 };
    });
    console.log(
      `\npruned ${pruned.result.minuteBlocks.toLocaleString("en")} minute blocks (GPU-hours) (${pruned.result.hoursRolledUp} hours rolled up) and ${pruned.result.hours} hour rows in ${pruned.result.seconds.toFixed(1)} s;` +
        ` event loop delay max ${pruned.loopMaxMs.toFixed(0)} ms, p99 ${pruned.loopP99Ms.toFixed(0)} ms;` +
        ` health probe (${pruned.probes} requests) max ${pruned.probeMaxMs.toFixed(0)} ms, p99 ${pruned.probeP99Ms.toFixed(0)} ms`,
    );
    const year = await measure("a year: 30 days of minutes, 365 days of hours");
    console.log(`\nRESULT ${args.database} gpus=${args.gpus} week=${mb(week)} year=${mb(year)}`);
  } finally {
    await disconnectDb();
    await bench.remove(args.keep);
  }
}

await main();
