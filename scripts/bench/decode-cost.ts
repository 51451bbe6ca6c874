/**
 * The CPU a viewer spends on each member-scope delta, without sockets: a
 * simulated fleet's readings, one second apart, go through the server's
 * FleetState and MemberEncoder as in production; the JSON of each delta is
 * then decoded as a browser does (JSON.parse, then lib/live/live-fleet-state.ts
 * `applyDeltaWire`) and as the bench's viewers do (`expandFleetDelta` only).
 * CPU time (process.cpuUsage), not wall time: the figure holds on a busy
 * machine, and it is the same work for every viewer of every instance.
 *
 *   npx tsx scripts/bench/decode-cost.ts --gpus 1000,4000 --seconds 30 --passes 5
 */
import { initialLiveFleetState, applyDeltaWire, applySnapshotWire, type LiveFleetState } from "@/lib/live/live-fleet-state";
import { expandFleetDelta, type FleetDeltaWire, type FleetSnapshotWire, type SlotTable } from "@/lib/live/live-wire";
import type { LiveGpu } from "@/lib/live/live";
import { simulatedFleet, simulatedSnapshotAt } from "@/host/collector/simulated/simulated-source";
import { FleetState } from "@/server/fleet/fleet-state";
import { MemberEncoder, SlotRegistry } from "@/server/live/member-encoder";
import { argsOrExit, flag } from "./args";

const T0 = Date.parse("2026-12-01T10:00:00.000Z");
const SEED = 42;

interface EncodedRun {
  snapshot: string;
  deltas: string[];
}

/** The wire JSON of a snapshot and of `seconds` deltas, one per second, every host reporting each second. */
function encodeRun(gpuCount: number, seconds: number): EncodedRun {
  let clock = T0;
  const fleet = new FleetState({ offlineAfterMs: 3_600_000, simulated: true, now: () => clock });
  const encoder = new MemberEncoder(new SlotRegistry());
  const specs = simulatedFleet({ seed: SEED, gpuCount });
  const ingestAll = (t: number) => {
    clock = t + 50;
    for (const spec of specs) fleet.ingest(spec.hostName, simulatedSnapshotAt(spec, SEED, t));
  };
  for (const spec of specs) fleet.connectHost(spec.hostName, spec.hostName, true);
  ingestAll(T0);
  const snapshot = JSON.stringify(encoder.snapshot(fleet.snapshot()));
  const first = fleet.drainDelta();
  if (first) encoder.encode(first);
  const deltas: string[] = [];
  for (let s = 1; s <= seconds; s += 1) {
    ingestAll(T0 + s * 1000);
    const delta = fleet.drainDelta();
    if (delta) deltas.push(JSON.stringify(encoder.encode(delta)));
  }
  return { snapshot, deltas };
}

function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * CPU µs of one decode pass over the run, the least of `passes` (the others
 * lost time to the machine). `prepare` runs outside the count (the snapshot).
 */
function measure<Held>(passes: number, prepare: () => Held, decodeAll: (held: Held) => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let pass = 0; pass < passes; pass += 1) {
    const held = prepare();
    const start = cpuMicros();
    decodeAll(held);
    best = Math.min(best, cpuMicros() - start);
  }
  return best;
}

function main(): void {
  const { gpus, seconds, passes } = argsOrExit(
    process.argv.slice(2),
    { gpus: flag.wholes([1000, 4000]), seconds: flag.whole(30), passes: flag.whole(5) },
    "usage: npx tsx scripts/bench/decode-cost.ts [--gpus 1000,4000] [--seconds 30] [--passes 5]",
  ).flags;
  console.log("| GPUs | delta JSON (bytes per GPU) | JSON.parse (µs per delta) | expandFleetDelta (µs) | applyDeltaWire, as a browser (µs) | browser total per GPU-reading (ns) |");
  console.log("|---:|---:|---:|---:|---:|---:|");
  for (const gpuCount of gpus) {
    const run = encodeRun(gpuCount, seconds);
    const bytes = run.deltas.reduce((sum, json) => sum + json.length, 0) / run.deltas.length;
    const count = run.deltas.length;

    const parse = measure(passes, () => null, () => {
      for (const json of run.deltas) JSON.parse(json);
    });
    const wires = run.deltas.map((json) => JSON.parse(json) as FleetDeltaWire);

    const expand = measure(
      passes,
      () => {
        const snapshot = JSON.parse(run.snapshot) as FleetSnapshotWire;
        const held: Record<string, LiveGpu> = {};
        const slots: SlotTable = {};
        snapshot.gpus.forEach((gpu, i) => {
          held[gpu.uuid] = gpu;
          slots[snapshot.slots[i]!] = gpu.uuid;
        });
        return { held, slots };
      },
      ({ held, slots }) => {
        for (const wire of wires) {
          for (const gpu of expandFleetDelta(wire, held, slots).gpus) held[gpu.uuid] = gpu;
        }
      },
    );
    const browserOnly = measure(
      passes,
      () => applySnapshotWire(initialLiveFleetState, JSON.parse(run.snapshot) as FleetSnapshotWire, T0),
      (snapshotState) => {
        let state: LiveFleetState = snapshotState;
        for (const wire of wires) state = applyDeltaWire(state, wire, T0).state;
      },
    );
    const perDelta = (micros: number) => (micros / count).toFixed(0);
    const browser = (parse + browserOnly) / count;
    console.log(
      `| ${gpuCount} | ${(bytes / gpuCount).toFixed(1)} | ${perDelta(parse)} | ${perDelta(expand)} | ${perDelta(browserOnly)} | ${((browser * 1000) / gpuCount).toFixed(0)} |`,
    );
  }
}

main();
