/**
 * What each GPU costs the server's memory, by component, counted in one
 * process without sockets or a database: the simulated fleet's readings
 * through the live state (`FleetState`, 15 minutes of history per GPU), the
 * member scope's encoder, the tick (offline check, reconciliation, alert
 * rules) and the minute rollups (what accumulates between two flushes).
 * Viewers add no state per GPU: each scope's delta is encoded once for all. After each stage a full GC, then V8's heap used plus array
 * buffers (typed arrays' storage): the retained memory, not RSS, which
 * also holds garbage not yet collected and freed pages not yet returned.
 *
 *   node --expose-gc --import tsx scripts/bench/gpu-memory.ts [--gpus 2000] [--seconds 900] [--json FILE]
 */
import { writeFileSync } from "node:fs";
import { memberSummaryOf } from "@/lib/live/live-wire";
import { DEFAULT_ALERT_CONFIG } from "@/server/alerts/alert-config";
import { alertRulesConsumer } from "@/server/alerts/alert-rules-consumer";
import { memoryPersistence } from "@/server/alerts/testing";
import { staticDirectory } from "@/server/attribution/user-directory";
import { simulatedFleet, simulatedSnapshotAt } from "@/host/collector/simulated/simulated-source";
import { AcceptedReadings } from "@/server/fleet/accepted-readings";
import { FleetState } from "@/server/fleet/fleet-state";
import { MemberEncoder, SlotRegistry } from "@/server/live/member-encoder";
import { MinuteRollups } from "@/server/history/minute-rollups";
import { rollupsConsumer } from "@/server/history/rollups-consumer";
import { Tick } from "@/server/tick/tick";
import { argsOrExit, flag } from "./args";
import { benchBookings } from "./bench-bookings";

const USAGE = "usage: node --expose-gc --import tsx scripts/bench/gpu-memory.ts [--gpus 2000] [--seconds 900] [--json FILE]";

const { flags } = argsOrExit(
  process.argv.slice(2),
  { gpus: flag.whole(2000), seconds: flag.whole(900), json: flag.text(null) },
  USAGE,
);

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error("run with node --expose-gc (see the usage)");
  process.exit(2);
}

function retained(): number {
  gc!();
  gc!();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

async function main(): Promise<void> {
  const seed = 7;
  const specs = simulatedFleet({ seed, gpuCount: flags.gpus });
  const gpus = specs.reduce((sum, spec) => sum + spec.gpus.length, 0);
  // Sixty distinct seconds of readings, replayed with later times: the history's size does not depend on its values.
  const startMs = Math.floor(Date.now() / 1000) * 1000 - flags.seconds * 1000;
  const distinct = Array.from({ length: Math.min(60, flags.seconds) }, (_, second) => specs.map((spec) => simulatedSnapshotAt(spec, seed, startMs + second * 1000)));
  const bookings = benchBookings(specs, startMs, flags.seconds);

  let now = startMs;
  const before = retained();
  const fleet = new FleetState({ offlineAfterMs: 30_000, simulated: true, now: () => now });
  const rollups = new MinuteRollups(() => now);
  const alerts = alertRulesConsumer({ config: { ...DEFAULT_ALERT_CONFIG }, persistence: memoryPersistence(), readInventory: false });
  const accepted = new AcceptedReadings();
  const tick = new Tick({ fleet, readings: accepted, bookings: { current: () => bookings }, directory: staticDirectory([]), consumers: [alerts, rollupsConsumer(rollups)], now: () => now });
  await tick.leaderJob.start();
  const slots = new SlotRegistry();
  const members = new MemberEncoder(slots, memberSummaryOf);
  specs.forEach((spec, host) => fleet.connectHost(`host-${host}`, spec.hostName, true));

  // The live state alone first: readings into the fleet's history, the delta drained each second.
  for (let second = 0; second < flags.seconds; second++) {
    now = startMs + second * 1000 + 500;
    const readings = distinct[second % distinct.length]!;
    readings.forEach((reading, host) => fleet.ingest(`host-${host}`, { ...reading, sampledAt: new Date(startMs + second * 1000).toISOString() }));
    fleet.drainDelta();
  }
  const fleetBytes = retained() - before;

  // Then the member scope's encoder (what it last sent of each GPU), a minute of deltas.
  let second = flags.seconds;
  const step = (withTick: boolean) => {
    now = startMs + second * 1000 + 500;
    const readings = distinct[second % distinct.length]!;
    readings.forEach((raw, host) => {
      const reading = { ...raw, sampledAt: new Date(startMs + second * 1000).toISOString() };
      fleet.ingest(`host-${host}`, reading);
      if (withTick) accepted.add({ id: `host-${host}`, simulated: true }, reading);
    });
    const delta = fleet.drainDelta();
    if (delta) members.encode(delta);
    if (withTick) tick.runTick(now);
    second += 1;
  };
  for (let i = 0; i < 60; i++) step(false);
  const encoderBytes = retained() - before - fleetBytes;
  // Then two minutes of the tick on top (offline check, reconciliation: attribution and GPU states, alert rules)
  // and the minute rollups (no flush: what waits for one).
  for (let i = 0; i < 120; i++) step(true);
  const allBytes = retained() - before;
  // The rollups' pending minutes go at each flush (every minute); what stays is the rest.
  const pendingMinutes = rollups.pendingMinutes;
  const internals = rollups as unknown as { pending: Map<string, unknown>; latest: Map<string, unknown> };
  internals.pending.clear();
  internals.latest.clear();
  const withoutRollups = retained() - before;

  const kib = (bytes: number) => bytes / gpus / 1024;
  const result = {
    gpus,
    historySeconds: flags.seconds,
    perGpuKiB: {
      liveStateWithHistory: kib(fleetBytes),
      memberEncoder: kib(encoderBytes),
      tickAttributionRules: kib(withoutRollups - fleetBytes - encoderBytes),
      rollupsPending: kib(allBytes - withoutRollups),
      total: kib(allBytes),
    },
    rollupsPendingMinutes: pendingMinutes,
  };
  console.log(`${gpus} GPUs, ${flags.seconds} s of history, retained heap + array buffers per GPU (KiB):`);
  console.log("| live state with history | member encoder | tick: attribution, GPU states, alert rules | rollups waiting for a flush | total |");
  console.log("|---:|---:|---:|---:|---:|");
  const p = result.perGpuKiB;
  const cells = [p.liveStateWithHistory, p.memberEncoder, p.tickAttributionRules, p.rollupsPending, p.total];
  console.log(`| ${cells.map((value) => value.toFixed(1)).join(" | ")} |`);
  if (flags.json) writeFileSync(flags.json, `${JSON.stringify(result, null, 2)}\n`);
  // Keep everything alive until measured.
  if (members === null || tick === null) console.log();
}

void main();
