/**
 * How fast the usage pages answer on a large history: fills a fresh SQLite
 * database with 30 days of minute and hour rollups of a 64-GPU simulated
 * fleet, times the report queries, then starts the real server on that
 * database and times `/admin/usage?range=30d` for a signed-in admin.
 *
 *   npx tsx scripts/bench-usage.ts [--gpus 64] [--days 30] [--samples-per-minute 1] [--runs 5] [--keep] [--queries-only]
 *
 * The fill writes through better-sqlite3 directly (millions of rows; the
 * server's own path writes a few hundred per flush through Prisma), with
 * rows made by the same simulator and rollup arithmetic as `--demo-history`.
 * The server builds the web app first if its build is stale (a minute or two).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { z } from "zod";
import { decodeMinuteBlock, encodeMinuteBlock } from "@/server/minutes/minute-block";
import type { HourRow, MinuteRow } from "@/server/history/rollup-math";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DAY_MS = 24 * 60 * 60_000;

const argsSchema = z.object({
  gpus: z.coerce.number().int().min(1).max(1024).default(64),
  days: z.coerce.number().int().min(1).max(365).default(30),
  samplesPerMinute: z.coerce.number().int().min(1).max(60).default(1),
  runs: z.coerce.number().int().min(1).max(50).default(5),
  keep: z.literal("true").optional(),
  /** Skip starting the server (no page times): for iterating on the queries. */
  queriesOnly: z.literal("true").optional(),
});

function parseArgs(argv: string[]): z.infer<typeof argsSchema> {
  const raw: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]!);
    if (!match) throw new Error(`unexpected argument ${argv[i]}`);
    const key = match[1]!.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    raw[key] = match[2] ?? (key === "keep" || key === "queriesOnly" ? "true" : (argv[++i] ?? ""));
  }
  return argsSchema.parse(raw);
}

const args = parseArgs(process.argv.slice(2));
const dataDir = mkdtempSync(path.join(os.tmpdir(), "gpudesk-bench-usage-"));
const dbFile = path.join(dataDir, "gpudesk.db");
process.env.GPUDESK_DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${dbFile}`;

const results: Record<string, unknown> = { gpus: args.gpus, days: args.days, samplesPerMinute: args.samplesPerMinute, cpus: os.cpus().length, node: process.version };

function ms(start: number): number {
  return Math.round((performance.now() - start) * 10) / 10;
}

async function timed<T>(runs: number, work: () => Promise<T>): Promise<{ first: number; median: number; max: number; last: T }> {
  const times: number[] = [];
  let last: T | undefined;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    last = await work();
    times.push(ms(start));
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { first: times[0]!, median: sorted[Math.floor(sorted.length / 2)]!, max: sorted[sorted.length - 1]!, last: last! };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Prisma's adapter stores DateTime as ISO text with an explicit offset; the fill must write the same. */
const iso = (date: Date) => date.toISOString().replace("Z", "+00:00");

async function fill(): Promise<void> {
  const { migrateDatabase } = await import("@/server/core/migrate");
  const { simulatedFleet, simulatedSnapshotAt } = await import("@/host/collector/simulated/simulated-source");
  const { ensureLocalHost, recordHostInventory } = await import("@/server/hosts/host-registry");
  const { fillDemoHistory } = await import("@/server/history/demo-history");
  const { byHourAndGpu } = await import("@/server/history/rollup-store");
  const { db } = await import("@/server/core/db");

  await migrateDatabase(process.env.DATABASE_URL!, repoRoot);
  const nowMs = Date.now();
  const specs = simulatedFleet({ seed: 42, gpuCount: args.gpus });
  const hostIds = new Map<string, string>();
  for (const spec of specs) {
    const host = await ensureLocalHost(spec.hostName, true);
    hostIds.set(spec.hostName, host.id);
    const reading = simulatedSnapshotAt(spec, 42, nowMs);
    await recordHostInventory(host.id, reading.host, reading.gpus, new Date(nowMs));
  }

  const sqlite = new Database(dbFile, { timeout: 15_000 });
  sqlite.pragma("synchronous = OFF");
  const hourColumns = ["gpuUuid", "hostId", "samples", "utilAvg", "utilMax", "memUsedAvg", "memUsedMax", "memTotal", "powerAvg", "tempAvg", "tempMax", "bookedByUserId", "simulated", "hour", "busyMinutes"];
  const readBlock = sqlite.prepare(`SELECT "data" FROM "GpuMinuteBlock" WHERE "gpuUuid" = ? AND "hour" = ?`).pluck();
  const writeBlock = sqlite.prepare(`INSERT OR REPLACE INTO "GpuMinuteBlock" ("gpuUuid", "hour", "data") VALUES (?, ?, ?)`);
  const insertHour = sqlite.prepare(`INSERT OR REPLACE INTO "GpuHour" (${hourColumns.map((c) => `"${c}"`).join(",")}) VALUES (${hourColumns.map(() => "?").join(",")})`);
  // Minutes go into their GPU-hour's block, as insertMissingMinuteRows writes them: a minute already stored stays.
  const writeMinutes = sqlite.transaction((rows: MinuteRow[]) => {
    for (const [hourMs, gpus] of byHourAndGpu(rows)) {
      for (const [uuid, minutes] of gpus) {
        const stored = readBlock.get(uuid, iso(new Date(hourMs))) as Buffer | undefined;
        const kept = new Map((stored ? decodeMinuteBlock(uuid, hourMs, stored) : []).map((row) => [row.minute.getTime(), row]));
        for (const row of minutes) if (!kept.has(row.minute.getTime())) kept.set(row.minute.getTime(), row);
        writeBlock.run(uuid, iso(new Date(hourMs)), encodeMinuteBlock(hourMs, [...kept.values()]));
      }
    }
  });
  const writeHours = sqlite.transaction((rows: HourRow[]) => {
    for (const r of rows) {
      insertHour.run(r.gpuUuid, r.hostId, r.samples, r.utilAvg, r.utilMax, r.memUsedAvg, r.memUsedMax, r.memTotal, r.powerAvg, r.tempAvg, r.tempMax, r.bookedByUserId, r.simulated ? 1 : 0, iso(r.hour), r.busyMinutes);
    }
  });

  const start = performance.now();
  let lastReport = 0;
  const made = await fillDemoHistory({
    specs,
    seed: 42,
    hostIds,
    fromMs: nowMs - args.days * DAY_MS,
    toMs: nowMs,
    samplesPerMinute: args.samplesPerMinute,
    writer: {
      writeMinutes: async (rows) => writeMinutes(rows),
      writeHours: async (rows) => writeHours(rows),
      recomputeHours: async (hours) => {
        const { recomputeHours } = await import("@/server/history/rollup-store");
        await recomputeHours(db(), hours);
      },
    },
    onProgress: (done) => {
      if (done - lastReport >= 0.1) {
        lastReport = done;
        process.stderr.write(`  fill ${Math.round(done * 100)}% (${Math.round((performance.now() - start) / 1000)} s)\n`);
      }
    },
  });
  sqlite.close();
  const minutes = await db().gpuMinuteBlock.count();
  const hours = await db().gpuHour.count();
  results.fill = { minuteBlocks: minutes, hourRows: hours, made, seconds: Math.round((performance.now() - start) / 100) / 10 };
  process.stdout.write(`filled ${minutes.toLocaleString("en-US")} minute blocks (GPU-hours) and ${hours.toLocaleString("en-US")} hour rows in ${(results.fill as { seconds: number }).seconds} s\n`);

  // Bookings, so that reservation efficiency has something to measure: 200 of them over the month.
  const user = await db().user.create({ data: { id: "bench-user", name: "Bench", email: "bench@example.test", username: "benchuser" } });
  const gpuRows = await db().gpu.findMany({ select: { id: true, hostId: true } });
  for (let i = 0; i < 200; i++) {
    const gpu = gpuRows[i % gpuRows.length]!;
    const startsAt = new Date(nowMs - args.days * DAY_MS + i * ((args.days * DAY_MS) / 200));
    const endsAt = new Date(startsAt.getTime() + 6 * 60 * 60_000);
    await db().reservation.create({
      data: { userId: user.id, hostId: gpu.hostId, startsAt, endsAt, purpose: `bench ${i}`, gpus: { create: [{ gpuId: gpu.id, startsAt, endsAt }] } },
    });
  }
}

async function queries(): Promise<void> {
  const { getUsageReport } = await import("@/server/history/usage-report");
  const { getGpuHistory } = await import("@/server/history/gpu-history");
  const { reservationEfficiency } = await import("@/server/history/reservation-efficiency");
  const { db } = await import("@/server/core/db");
  const nowMs = Date.now();
  const table: Record<string, unknown> = {};
  process.stdout.write(`\nqueries (ms over ${args.runs} runs: first / median / max)\n`);
  for (const [choice, span] of [["1h", 3600_000], ["24h", DAY_MS], ["7d", 7 * DAY_MS], ["30d", 30 * DAY_MS]] as const) {
    const t = await timed(args.runs, () =>
      getUsageReport({ range: { choice, fromMs: nowMs - span, toMs: nowMs }, groupBy: "host", nowMs, minuteRetentionMs: 30 * DAY_MS }),
    );
    table[`report ${choice}`] = { first: t.first, median: t.median, max: t.max, source: t.last.range.source, points: t.last.utilization.points.length, heatmapCells: t.last.heatmap.rows.length * t.last.heatmap.columns.length };
    process.stdout.write(`  usage report ${choice.padEnd(4)} ${String(t.first).padStart(8)} / ${String(t.median).padStart(8)} / ${String(t.max).padStart(8)}   (${t.last.range.source} rollups, ${t.last.utilization.points.length} points, ${t.last.heatmap.rows.length}×${t.last.heatmap.columns.length} heatmap)\n`);
  }
  const gpu = await db().gpu.findFirstOrThrow({ select: { uuid: true } });
  for (const [choice, span] of [["24h", DAY_MS], ["30d", 30 * DAY_MS]] as const) {
    const t = await timed(args.runs, () => getGpuHistory({ uuid: gpu.uuid, range: { choice, fromMs: nowMs - span, toMs: nowMs }, nowMs, minuteRetentionMs: 30 * DAY_MS }));
    table[`gpu history ${choice}`] = { first: t.first, median: t.median, max: t.max };
    process.stdout.write(`  GPU history  ${choice.padEnd(4)} ${String(t.first).padStart(8)} / ${String(t.median).padStart(8)} / ${String(t.max).padStart(8)}\n`);
  }
  const ids = (await db().reservation.findMany({ select: { id: true } })).map((r) => r.id);
  const t = await timed(args.runs, () => reservationEfficiency(ids));
  table["reservation efficiency ×200"] = { first: t.first, median: t.median, max: t.max };
  process.stdout.write(`  efficiency of ${ids.length} bookings ${String(t.first).padStart(4)} / ${String(t.median).padStart(8)} / ${String(t.max).padStart(8)}\n`);
  results.queries = table;
  const { disconnectDb } = await import("@/server/core/db");
  await disconnectDb();
}

function cli(argv: string[], input?: string) {
  return spawnSync(process.execPath, [path.join(repoRoot, "bin", "gpudesk.js"), ...argv], {
    cwd: repoRoot,
    env: { ...process.env, GPUDESK_DATA_DIR: dataDir, DATABASE_URL: `file:${dbFile}` },
    input,
    encoding: "utf8",
    timeout: 120_000,
  });
}

async function page(): Promise<void> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const created = cli(["user", "add", "benchadmin", "--admin", "--password-stdin"], "bench-admin-password");
  if (created.status !== 0) throw new Error(`user add failed: ${created.stderr}`);

  process.stderr.write("starting the server (it builds the web app first when the build is stale)…\n");
  const server: ChildProcess = spawn(process.execPath, [path.join(repoRoot, "bin", "gpudesk.js"), "serve"], {
    cwd: repoRoot,
    env: { ...process.env, GPUDESK_DATA_DIR: dataDir, DATABASE_URL: `file:${dbFile}`, PORT: String(port), HOST: "127.0.0.1", GPUDESK_LOCAL_AGENT: "off" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let serverLog = "";
  server.stderr?.on("data", (chunk: Buffer) => (serverLog += chunk.toString()));
  try {
    const deadline = Date.now() + 600_000;
    for (;;) {
      if (server.exitCode !== null) throw new Error(`server exited:\n${serverLog.slice(-2000)}`);
      try {
        if ((await fetch(`${origin}/api/health`)).ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error("server did not start within 10 minutes");
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const signIn = await fetch(`${origin}/api/auth/sign-in/username`, {
      method: "POST",
      headers: { "content-type": "application/json", origin },
      body: JSON.stringify({ username: "benchadmin", password: "bench-admin-password" }),
    });
    if (!signIn.ok) throw new Error(`sign-in failed: ${signIn.status} ${await signIn.text()}`);
    const cookie = signIn.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");

    const table: Record<string, unknown> = {};
    process.stdout.write(`\npages over HTTP (ms, whole response: first / median / max)\n`);
    for (const url of ["/admin/usage?range=30d", "/admin/usage?range=7d", "/admin/usage?range=24h", "/api/v1/usage?range=30d", "/metrics"]) {
      let bytes = 0;
      const t = await timed(args.runs, async () => {
        const response = await fetch(`${origin}${url}`, { headers: { cookie }, redirect: "manual" });
        if (response.status !== 200) throw new Error(`${url}: HTTP ${response.status}`);
        bytes = (await response.arrayBuffer()).byteLength;
      });
      table[url] = { first: t.first, median: t.median, max: t.max, bytes };
      process.stdout.write(`  ${url.padEnd(26)} ${String(t.first).padStart(8)} / ${String(t.median).padStart(8)} / ${String(t.max).padStart(8)}   (${Math.round(bytes / 1024)} KiB)\n`);
    }
    results.pages = table;
  } finally {
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
  }
}

try {
  await fill();
  await queries();
  if (!args.queriesOnly) await page();
  const out = path.join(repoRoot, "bench", "results");
  mkdirSync(out, { recursive: true });
  const file = path.join(out, `usage-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, "")}.json`);
  writeFileSync(file, JSON.stringify(results, null, 2));
  process.stdout.write(`\nresults: ${path.relative(repoRoot, file)}\n`);
} finally {
  if (!args.keep) rmSync(dataDir, { recursive: true, force: true });
  else process.stdout.write(`database kept in ${dataDir}\n`);
}
