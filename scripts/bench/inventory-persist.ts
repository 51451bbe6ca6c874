/**
 * What the ingest writes to the database besides the rollups: each host's
 * versions, last-seen time and GPU inventory, at most once a minute per host
 * (server/fleet/ingest.ts), at fleet size, against a fresh SQLite database.
 * Feeds the ingest one reading per host per second for a few simulated
 * minutes and prints CPU milliseconds of this process per simulated minute
 * spent in those writes, and SQL statements per minute.
 *
 *   npx tsx scripts/bench/inventory-persist.ts [--gpus 1000] [--minutes 3]
 */
import type { GpuSample } from "@/lib/domain/snapshot";
import { argsOrExit, flag } from "./args";
import { useScratchDatabase } from "./scratch-database";
import { countSqlStatements, summarizeSqlCounts } from "./sql-counter.mjs";

const GPUS_PER_HOST = 8;

async function main(): Promise<void> {
  const { gpus: gpuCount, minutes } = argsOrExit(
    process.argv.slice(2),
    { gpus: flag.whole(1000), minutes: flag.whole(3) },
    "usage: npx tsx scripts/bench/inventory-persist.ts [--gpus 1000] [--minutes 3]",
  ).flags;
  const scratch = await useScratchDatabase("inventory-bench");
  const { ensureLocalHost } = await import("@/server/hosts/host-registry");
  const { FleetState } = await import("@/server/fleet/fleet-state");
  const { createIngest } = await import("@/server/fleet/ingest");
  const { makeGpu, makeSnapshot } = await import("@/server/testing/factories");

  const t0 = Date.now() - minutes * 60_000;
  let now = t0;
  const fleet = new FleetState({ offlineAfterMs: 30_000, simulated: true, now: () => now });
  const ingest = createIngest(fleet, () => now);
  const hosts: { host: { id: string; name: string; simulated: boolean }; gpus: GpuSample[] }[] = [];
  for (let h = 0; h < Math.ceil(gpuCount / GPUS_PER_HOST); h++) {
    const host = await ensureLocalHost(`bench-${h}`, true);
    fleet.connectHost(host.id, host.name, true);
    hosts.push({ host, gpus: Array.from({ length: Math.min(GPUS_PER_HOST, gpuCount - h * GPUS_PER_HOST) }, (_, index) => makeGpu({ index })) });
  }

  const sql = countSqlStatements();
  const perMinute: { cpuMs: number; statements: number }[] = [];
  // Hosts report at different offsets of the minute, as a fleet that started over time does.
  for (let minute = 0; minute <= minutes; minute++) {
    sql.clear();
    const cpu = process.cpuUsage();
    for (let second = 0; second < 60; second++) {
      now = t0 + minute * 60_000 + second * 1000;
      for (const { host, gpus } of hosts) await ingest.ingestBatch(host, [makeSnapshot(gpus, now - 200)]);
      await ingest.flush();
    }
    const used = process.cpuUsage(cpu);
    perMinute.push({ cpuMs: (used.user + used.system) / 1000, statements: summarizeSqlCounts(sql).total });
  }
  // A minute of the same readings with the clock held, so that no host is due a write: the ingest
  // on its own, taken off the minutes above.
  const cpu = process.cpuUsage();
  for (let second = 0; second < 60; second++) for (const { host, gpus } of hosts) await ingest.ingestBatch(host, [makeSnapshot(gpus, now - 200)]);
  const bareUsed = process.cpuUsage(cpu);
  const bareMs = (bareUsed.user + bareUsed.system) / 1000;

  const round = (value: number) => Math.round(value * 10) / 10;
  process.stdout.write(`${gpuCount} GPUs on ${hosts.length} hosts, one reading per host per second\n\n`);
  process.stdout.write("| minute | CPU ms (ingest and inventory writes) | SQL statements |\n|---|---:|---:|\n");
  for (const [i, row] of perMinute.entries()) process.stdout.write(`| ${i === 0 ? "0 (first readings)" : i} | ${round(row.cpuMs)} | ${row.statements} |\n`);
  const steady = perMinute.slice(1);
  const mean = steady.reduce((sum, row) => sum + row.cpuMs, 0) / steady.length;
  // Two figures rather than their difference: on a shared machine the difference of two noisy
  // measures goes below zero once the writes are small.
  process.stdout.write(`\nsteady minutes: ${round(mean)} CPU ms per minute; a minute of the same readings with no write due: ${round(bareMs)}\n`);
  await scratch.remove();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
