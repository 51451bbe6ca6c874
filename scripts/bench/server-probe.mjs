// Loaded into the benchmarked server with `node --import ./scripts/bench/server-probe.mjs bin/gpudesk.js serve`,
// so that the server itself stays as it ships. It watches the event loop from inside
// (a monitorEventLoopDelay histogram and the event-loop utilization) and, on SIGUSR2,
// writes what it saw since the previous SIGUSR2 to GPUDESK_BENCH_PROBE_FILE, then starts over.
import { renameSync, writeFileSync } from "node:fs";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { countSqlStatements, summarizeSqlCounts } from "./sql-counter.mjs";

const file = process.env.GPUDESK_BENCH_PROBE_FILE;
if (file) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let utilizationSince = performance.eventLoopUtilization();
  let cpuSince = process.cpuUsage();
  const sqlCounts = countSqlStatements();
  process.on("SIGUSR2", () => {
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    const utilization = performance.eventLoopUtilization(utilizationSince);
    const cpu = process.cpuUsage(cpuSince);
    const sql = summarizeSqlCounts(sqlCounts);
    const report = {
      at: Date.now(),
      eventLoopDelayMs: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max), mean: ms(delay.mean) },
      eventLoopUtilization: utilization.utilization,
      cpuUserMs: cpu.user / 1000,
      cpuSystemMs: cpu.system / 1000,
      heapUsedMiB: process.memoryUsage().heapUsed / 2 ** 20,
      sqlStatements: sql.total,
      sqlTop: sql.top,
    };
    writeFileSync(`${file}.tmp`, JSON.stringify(report));
    renameSync(`${file}.tmp`, file);
    delay.reset();
    sqlCounts.clear();
    utilizationSince = performance.eventLoopUtilization();
    cpuSince = process.cpuUsage();
  });
}
