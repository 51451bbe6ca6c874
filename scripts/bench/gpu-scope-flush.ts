/**
 * CPU per flush of the GPU scope (server/live/gpu-scope.ts), apart from
 * socket.io: a fleet of N GPUs, B active or upcoming bookings of 4 GPUs
 * each, W GPU pages each watching another GPU. Times `GpuScope.flush` with
 * no readings (most flushes: every 25 ms the feed looks, about one a second
 * has readings) and with one reading of every GPU, and counts what it sends.
 * Load-independent enough to compare commits run back to back; prints JSON.
 *
 *   npx tsx scripts/bench/gpu-scope-flush.ts [--gpus 1000] [--bookings 250] [--watchers 50] [--flushes 2000]
 */
import os from "node:os";
import type { FleetDelta, LiveBooking } from "@/lib/live/live";
import { FleetState } from "@/server/fleet/fleet-state";
import { GpuScope } from "@/server/live/gpu-scope";
import { SlotRegistry } from "@/server/live/member-encoder";
import { makeGpu, makeSnapshot } from "@/server/testing/factories";
import { argsOrExit, flag } from "./args";

const USAGE = "usage: npx tsx scripts/bench/gpu-scope-flush.ts [--gpus 1000] [--bookings 250] [--watchers 50] [--flushes 2000]";
const args = argsOrExit(
  process.argv.slice(2),
  {
    gpus: flag.whole(1000, { min: 8, max: 10_000 }),
    bookings: flag.whole(250, { min: 0, max: 5000 }),
    watchers: flag.whole(50, { min: 1, max: 1000 }),
    flushes: flag.whole(2000, { min: 10, max: 1_000_000 }),
  },
  USAGE,
).flags;
const fleet = new FleetState({ offlineAfterMs: 60_000, simulated: true });
const hosts = Math.ceil(args.gpus / 8);
const gpusOf = new Map<string, ReturnType<typeof makeGpu>[]>();
for (let h = 0; h < hosts; h += 1) {
  const gpus = Array.from({ length: Math.min(8, args.gpus - h * 8) }, (_, index) => makeGpu({ index, pciBusId: `00000000:${(16 + index).toString(16)}:00.0` }));
  gpusOf.set(`h${h}`, gpus);
  fleet.connectHost(`h${h}`, `node-${h}`, true);
}
let sampledAt = Date.now() - 60_000;
const ingestAll = () => {
  sampledAt += 1000;
  for (const [hostId, gpus] of gpusOf) {
    fleet.ingest(hostId, makeSnapshot(gpus.map((gpu) => ({ ...gpu, utilizationGpuPct: Math.round(Math.random() * 100) })), sampledAt, { host: { name: `node-${hostId}`, driverVersion: "580", cudaVersion: "13.0" } }));
  }
};
ingestAll();
fleet.drainDelta();

const uuids = [...gpusOf.values()].flat().map((gpu) => gpu.uuid);
const bookings: LiveBooking[] = Array.from({ length: args.bookings }, (_, i) => ({
  reservationId: `res-${i}`,
  hostId: `h${i % hosts}`,
  hostName: `node-${i % hosts}`,
  gpus: [0, 1, 2, 3].map((k) => ({ uuid: uuids[(i * 4 + k) % uuids.length]!, index: k })),
  bookedBy: { id: `user-${i}`, username: `user${i}`, name: `User ${i}` },
  startsAt: new Date(Date.now() + i * 3_600_000).toISOString(),
  endsAt: new Date(Date.now() + (i + 2) * 3_600_000).toISOString(),
  purpose: "fine-tuning a model for the benchmark",
}));

const scope = new GpuScope(
  {
    gpu: (uuid) => fleet.gpu(uuid),
    history: (uuid) => fleet.history(uuid),
    gpuState: () => null,
    bookings: () => bookings,
    simulated: true,
  },
  new SlotRegistry(),
);
const sent = { snapshots: 0, deltas: 0 };
const emit = { snapshot: () => (sent.snapshots += 1), delta: () => (sent.deltas += 1) };
for (let w = 0; w < args.watchers; w += 1) scope.watch(`socket-${w}`, uuids[(w * 7) % uuids.length]!);
scope.flush(null, emit);

function timeFlushes(drained: () => FleetDelta | null): { usPerFlush: number; deltasPerFlush: number } {
  const before = sent.deltas;
  let spent = 0;
  for (let i = 0; i < args.flushes; i += 1) {
    const delta = drained();
    const start = process.cpuUsage();
    scope.flush(delta, emit);
    const used = process.cpuUsage(start);
    spent += used.user + used.system;
  }
  return { usPerFlush: Math.round((spent / args.flushes) * 100) / 100, deltasPerFlush: (sent.deltas - before) / args.flushes };
}

// No readings: timed as one loop (process.cpuUsage itself costs about a microsecond a call).
const quiet = (() => {
  const before = sent.deltas;
  const start = process.cpuUsage();
  for (let i = 0; i < args.flushes; i += 1) scope.flush(null, emit);
  const used = process.cpuUsage(start);
  return { usPerFlush: Math.round(((used.user + used.system) / args.flushes) * 100) / 100, deltasPerFlush: (sent.deltas - before) / args.flushes };
})();
const readingFlushes = Math.max(10, Math.round(args.flushes / 20));
const withReadings = (() => {
  const saved = args.flushes;
  args.flushes = readingFlushes;
  const result = timeFlushes(() => {
    ingestAll();
    return fleet.drainDelta();
  });
  args.flushes = saved;
  return result;
})();

console.log(
  JSON.stringify(
    { ...args, readingFlushes, node: process.version, cpu: os.cpus()[0]?.model, load: os.loadavg()[0], noReadings: quiet, everyGpuRead: withReadings, snapshots: sent.snapshots },
    null,
    2,
  ),
);
