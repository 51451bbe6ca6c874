/**
 * The unseen-use rule (lib/domain/gpu-availability.ts, `detectUnseenUse`) on the
 * simulated fleet, and what it costs: how many simulated readings it calls
 * in use with no process visible (the demo must keep its free GPUs: it
 * should be none) and the CPU of one deriveGpuState call at 1,000 GPUs.
 *
 *   npx tsx scripts/unseen-use-check.ts [older-gpu-availability.ts]
 *
 * Given a copy of an older lib/domain/gpu-availability.ts placed under lib/ (e.g.
 * `git show 9d2a011:lib/domain/gpu-availability.ts > lib/gpu-availability-old.ts`),
 * it measures that one too, on the same readings, and counts the GPUs each
 * calls free.
 */
import path from "node:path";
import { deriveGpuState, type GpuStateInput } from "@/lib/domain/gpu-availability";
import type { GpuReconciliation } from "@/lib/domain/attribution";
import { simulatedFleet, simulatedSnapshotAt } from "@/host/collector/simulated/simulated-source";

type Derive = (input: GpuStateInput) => GpuReconciliation;
const SEED = 42;
const T0 = Date.parse("2026-12-01T00:00:00Z");

function readings(gpuCount: number | undefined, t: number): GpuStateInput["gpu"][] {
  return simulatedFleet({ seed: SEED, gpuCount }).flatMap((spec) => {
    const snapshot = simulatedSnapshotAt(spec, SEED, t);
    return snapshot.gpus.map((gpu) => ({ ...gpu, processes: snapshot.processes.filter((process) => process.gpuUuid === gpu.uuid) }));
  });
}

function input(gpu: GpuStateInput["gpu"]): GpuStateInput {
  return { gpu, online: true, booking: null, attributions: new Map() };
}

async function main() {
  const olderPath = process.argv[2];
  const older: Derive | null = olderPath ? ((await import(path.resolve(olderPath))) as { deriveGpuState: Derive }).deriveGpuState : null;
  const versions: [string, Derive][] = [["current", deriveGpuState], ...(older ? [["older", older] as [string, Derive]] : [])];

  // An hour of simulated time, every 10 s.
  for (const gpuCount of [undefined, 1000]) {
    const counts = Object.fromEntries(versions.map(([name]) => [name, { free: 0, unseenUse: 0 }]));
    let total = 0;
    for (let second = 0; second < 3600; second += 10) {
      for (const gpu of readings(gpuCount, T0 + second * 1000)) {
        total += 1;
        for (const [name, derive] of versions) {
          const state = derive(input(gpu));
          if (state.state === "free") counts[name]!.free += 1;
          if (state.unseenUse) counts[name]!.unseenUse += 1;
        }
      }
    }
    console.log(JSON.stringify({ fleet: gpuCount ?? "demo", readings: total, ...counts }));
  }

  const gpus = readings(1000, T0 + 600_000).map(input);
  for (const [name, derive] of versions) {
    for (let round = 0; round < 50; round++) for (const each of gpus) derive(each);
    const rounds = 400;
    const start = process.cpuUsage();
    for (let round = 0; round < rounds; round++) for (const each of gpus) derive(each);
    const used = process.cpuUsage(start);
    console.log(JSON.stringify({ version: name, gpus: gpus.length, cpuNsPerCall: Math.round(((used.user + used.system) * 1000) / (rounds * gpus.length)) }));
  }
}

void main();
