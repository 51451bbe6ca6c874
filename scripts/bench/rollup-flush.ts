/**
 * The usage rollups' flush on its own, at fleet size: `npm run bench` sees
 * at most one flush (every 30 s by default) in its window, so this script
 * feeds a MinuteRollups one simulated hour of readings (one per GPU per
 * second) and flushes every 30 s of that hour, as the server does, against
 * a fresh SQLite database. It prints, per flush, CPU milliseconds of this
 * process (load-independent enough on a shared machine), wall
 * milliseconds, SQL statements and the longest block of the event loop
 * (the longest the flush kept the live path waiting), at a few points of the hour and on
 * average; and the CPU cost of `record` per GPU reading.
 *
 *   npx tsx scripts/bench/rollup-flush.ts [--gpus 1000] [--minutes 60]
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { GpuSample } from "@/lib/domain/snapshot";
import { argsOrExit, flag } from "./args";
import { useScratchDatabase } from "./scratch-database";
import { countSqlStatements, summarizeSqlCounts } from "./sql-counter.mjs";

const GPUS_PER_HOST = 8;
const FLUSH_EVERY_S = 30;
// A fixed whole hour in the past, so that the hour boundary is where the report says.
const T0 = Date.UTC(2026, 10, 30, 10, 0, 0);

async function main(): Promise<void> {
  const { gpus: gpuCount, minutes } = argsOrExit(
    process.argv.slice(2),
    { gpus: flag.whole(1000), minutes: flag.whole(60) },
    "usage: npx tsx scripts/bench/rollup-flush.ts [--gpus 1000] [--minutes 60]",
  ).flags;
  const scratch = await useScratchDatabase("rollup-bench");
  const { ensureLocalHost, recordHostInventory } = await import("@/server/hosts/host-registry");
  const { MinuteRollups } = await import("@/server/history/minute-rollups");
  const { makeGpu, makeSnapshot } = await import("@/server/testing/factories");

  const hosts: { host: { id: string; simulated: boolean }; gpus: GpuSample[] }[] = [];
  for (let h = 0; h < Math.ceil(gpuCount / GPUS_PER_HOST); h++) {
    const host = await ensureLocalHost(`bench-${h}`, true);
    const gpus = Array.from({ length: Math.min(GPUS_PER_HOST, gpuCount - h * GPUS_PER_HOST) }, (_, index) => makeGpu({ index }));
    await recordHostInventory(host.id, { name: host.name, driverVersion: "580.1", cudaVersion: "13.0" }, gpus, new Date(T0));
    hosts.push({ host, gpus });
  }

  const sql = countSqlStatements();
  const rollups = new MinuteRollups(() => T0 + minutes * 60_000);
  const flushes: { atS: number; cpuMs: number; wallMs: number; statements: number; longestMs: number }[] = [];
  // The longest the flush held the event loop at once (what the live path waits behind): the loop's delay, sampled every ms.
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  let recordCpuUs = 0;
  let readings = 0;
  for (let second = 0; second < minutes * 60; second++) {
    const cpu = process.cpuUsage();
    for (const { host, gpus } of hosts) {
      const at = T0 + second * 1000;
      const moved = gpus.map((gpu, i) => ({ ...gpu, utilizationGpuPct: (second * 7 + i * 13) % 101, powerDrawW: 100 + ((second + i) % 400) }));
      rollups.record(host, makeSnapshot(moved, at));
      readings += gpus.length;
    }
    const used = process.cpuUsage(cpu);
    recordCpuUs += used.user + used.system;
    if ((second + 1) % FLUSH_EVERY_S !== 0) continue;
    sql.clear();
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    loopDelay.reset();
    loopDelay.enable();
    await rollups.flush();
    // One more turn of the loop, so that a block at the very end is sampled too.
    await new Promise((resolve) => setTimeout(resolve, 2));
    loopDelay.disable();
    const cpuUsed = process.cpuUsage(cpuBefore);
    flushes.push({
      atS: second + 1,
      cpuMs: (cpuUsed.user + cpuUsed.system) / 1000,
      wallMs: performance.now() - wallBefore,
      statements: summarizeSqlCounts(sql).total,
      longestMs: loopDelay.max / 1e6,
    });
  }

  const round = (value: number) => Math.round(value * 10) / 10;
  process.stdout.write(`${gpuCount} GPUs, one reading per GPU per second, a flush every ${FLUSH_EVERY_S} s, ${minutes} minutes from the start of an hour\n\n`);
  process.stdout.write("| flush at (mm:ss of the hour) | CPU ms | wall ms | SQL statements | longest block of the event loop (ms) |\n|---|---:|---:|---:|---:|\n");
  const shown = new Set([0, 1, Math.floor(flushes.length / 4), Math.floor(flushes.length / 2), flushes.length - 2, flushes.length - 1]);
  for (const [i, flush] of flushes.entries()) {
    if (!shown.has(i)) continue;
    const mmss = `${String(Math.floor(flush.atS / 60)).padStart(2, "0")}:${String(flush.atS % 60).padStart(2, "0")}`;
    process.stdout.write(`| ${mmss} | ${round(flush.cpuMs)} | ${round(flush.wallMs)} | ${flush.statements} | ${round(flush.longestMs)} |\n`);
  }
  const mean = (pick: (flush: (typeof flushes)[number]) => number) => flushes.reduce((sum, flush) => sum + pick(flush), 0) / flushes.length;
  process.stdout.write(`| mean of ${flushes.length} flushes | ${round(mean((f) => f.cpuMs))} | ${round(mean((f) => f.wallMs))} | ${round(mean((f) => f.statements))} | ${round(Math.max(...flushes.map((f) => f.longestMs)))} (max) |\n\n`);
  process.stdout.write(`record: ${round((recordCpuUs * 1000) / readings)} ns CPU per GPU reading (${readings} readings)\n`);
  await scratch.remove();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
