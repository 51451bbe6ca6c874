/**
 * The server's in-memory work per reading, without sockets or a database:
 * the simulated fleet's readings (as JSON arrives from an agent) through
 * the reading check (server/fleet/check-reading.ts), `FleetState.ingest`,
 * the live delta, and once a second the server's tick (server/tick/: the
 * offline check, the reconciliation, the alert rules and the minute rollups
 * as its consumers, the rollups recording the second's readings), as
 * the server runs them. Prints CPU microseconds per GPU reading for each stage: CPU time
 * (process.cpuUsage) rather than wall-clock, so that a shared machine moves
 * the figures less.
 *
 *   npx tsx scripts/bench/ingest-micro.ts [--gpus 1000] [--seconds 60] [--rounds 3]
 */
import { checkReading } from "@/server/fleet/check-reading";
import { DEFAULT_ALERT_CONFIG } from "@/server/alerts/alert-config";
import { alertRulesConsumer } from "@/server/alerts/alert-rules-consumer";
import { staticDirectory } from "@/server/attribution/user-directory";
import { simulatedFleet, simulatedSnapshotAt } from "@/host/collector/simulated/simulated-source";
import { AcceptedReadings } from "@/server/fleet/accepted-readings";
import { FleetState } from "@/server/fleet/fleet-state";
import { MinuteRollups } from "@/server/history/minute-rollups";
import { rollupsConsumer } from "@/server/history/rollups-consumer";
import { memoryPersistence } from "@/server/alerts/testing";
import { Tick } from "@/server/tick/tick";
import type { LiveBooking } from "@/lib/live/live";
import { argsOrExit, flag } from "./args";
import { benchBookings } from "./bench-bookings";

const SECRET = "ingest-micro-secret";

interface Stages {
  check: number;
  ingest: number;
  drain: number;
  /** The tick: offline check, reconciliation, alert rules, minute rollups (no flush). */
  tick: number;
}

function cpuUs(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

const USAGE = "usage: npx tsx scripts/bench/ingest-micro.ts [--gpus 1000] [--seconds 60] [--rounds 3]";

function parseOptions(argv: string[]) {
  return argsOrExit(argv, { gpus: flag.whole(1000), seconds: flag.whole(60), rounds: flag.whole(3) }, USAGE).flags;
}

async function run(raw: string[][], startMs: number, bookings: LiveBooking[]): Promise<Stages> {
  let now = startMs;
  const fleet = new FleetState({ offlineAfterMs: 30_000, simulated: true, now: () => now });
  const alerts = alertRulesConsumer({ config: { ...DEFAULT_ALERT_CONFIG }, persistence: memoryPersistence(), readInventory: false });
  const readings = new AcceptedReadings();
  const rollups = rollupsConsumer(new MinuteRollups(() => now));
  const tick = new Tick({ fleet, readings, bookings: { current: () => bookings }, directory: staticDirectory([]), consumers: [alerts, rollups], now: () => now });
  await tick.leaderJob.start();
  const stages: Stages = { check: 0, ingest: 0, drain: 0, tick: 0 };
  raw[0]!.forEach((_, host) => fleet.connectHost(`host-${host}`, `host-${host}`, true));
  for (let second = 0; second < raw.length; second++) {
    now = startMs + second * 1000 + 500;
    // Check every host's reading of the second, then apply them: a clock read per stage, not per host.
    // What socket.io hands over: the agent's JSON, parsed (the parse is not counted).
    const parsed = raw[second]!.map((text) => JSON.parse(text) as unknown);
    let at = cpuUs();
    const checked = parsed.map((reading) => checkReading(reading, now, SECRET));
    stages.check += cpuUs() - at;
    at = cpuUs();
    checked.forEach((reading, host) => {
      if (!reading.ok) throw new Error(reading.error);
      fleet.ingest(`host-${host}`, reading.snapshot);
      readings.add({ id: `host-${host}`, simulated: true }, reading.snapshot);
    });
    stages.ingest += cpuUs() - at;
    at = cpuUs();
    fleet.drainDelta();
    stages.drain += cpuUs() - at;
    at = cpuUs();
    tick.runTick(now);
    stages.tick += cpuUs() - at;
  }
  return stages;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const seed = 7;
  const specs = simulatedFleet({ seed, gpuCount: options.gpus });
  const startMs = Date.now() - options.seconds * 1000;
  const raw = Array.from({ length: options.seconds }, (_, second) =>
    specs.map((spec) => JSON.stringify(simulatedSnapshotAt(spec, seed, startMs + second * 1000))),
  );
  const gpuReadings = specs.reduce((sum, spec) => sum + spec.gpus.length, 0) * options.seconds;
  const bookings = benchBookings(specs, startMs, options.seconds);
  console.log(`${options.gpus} GPUs (${specs.length} hosts), ${options.seconds} s of readings, ${gpuReadings} GPU readings per round`);
  console.log("| round | check | ingest | drain | tick (reconcile + rules + rollups) | total (µs CPU per GPU reading) |");
  console.log("|---:|---:|---:|---:|---:|---:|");
  for (let round = 1; round <= options.rounds; round++) {
    const stages = await run(raw, startMs, bookings);
    const per = (us: number) => (us / gpuReadings).toFixed(2);
    const total = stages.check + stages.ingest + stages.drain + stages.tick;
    console.log(`| ${round} | ${per(stages.check)} | ${per(stages.ingest)} | ${per(stages.drain)} | ${per(stages.tick)} | ${per(total)} |`);
  }
}

void main();
