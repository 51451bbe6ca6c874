/**
 * Bytes a GPU page receives against the fleet view, on a fleet of N GPUs
 * (default 1,000) whose readings all change every second: real socket.io
 * server and clients in one process, `npx tsx scripts/bench/gpu-scope-bytes.ts [N] [seconds]`.
 * Counts every socket.io frame after the first snapshot. Load-independent:
 * bytes, not time.
 */
import { FleetState } from "@/server/fleet/fleet-state";
import { makeGpu, makeProcess, makeSnapshot } from "@/server/testing/factories";
import { startLiveServer, until, watchGpu, watchMember } from "@/server/testing/live-clients";
import { argsOrExit, exitWithUsage, flag } from "./args";

const USAGE = "usage: npx tsx scripts/bench/gpu-scope-bytes.ts [N (GPUs, 1000)] [seconds (10)]";

async function main() {
  const { positionals } = argsOrExit(process.argv.slice(2), {}, USAGE, { positionals: true });
  if (positionals.length > 2) exitWithUsage(`unexpected argument "${positionals[2]}"`, USAGE);
  const whole = (text: string | undefined, name: string, fallback: number): number => {
    try {
      return text === undefined ? fallback : flag.whole(fallback).parse(text, name);
    } catch (error) {
      return exitWithUsage(error instanceof Error ? error.message : String(error), USAGE);
    }
  };
  const count = whole(positionals[0], "N", 1000);
  const seconds = whole(positionals[1], "seconds", 10);
  const fleet = new FleetState({ offlineAfterMs: 60_000, simulated: true });
  const live = await startLiveServer(fleet, { tickMs: 1000, flushMs: 100 });
  const hosts = Array.from({ length: Math.ceil(count / 8) }, (_, h) => ({ id: `h${h}`, gpus: Array.from({ length: 8 }, (_, i) => makeGpu({ index: i })) }));
  const start = Date.now();
  const ingest = (second: number) => {
    for (const host of hosts) {
      const gpus = host.gpus.map((gpu, i) => ({ ...gpu, utilizationGpuPct: (second * 7 + i * 13) % 100, utilizationMemoryPct: (second * 3 + i) % 60, memoryUsedMiB: 20_000 + ((second * 97) % 500), temperatureC: 50 + (second % 9), powerDrawW: 300 + ((second * 11) % 200), smClockMHz: 1400 + ((second * 30) % 500) }));
      fleet.ingest(host.id, makeSnapshot(gpus, start + second * 1000, { host: { name: `node-${host.id}`, driverVersion: "580", cudaVersion: "13.0" }, processes: gpus.map((gpu) => makeProcess(gpu, { usedMemoryMiB: gpu.memoryUsedMiB ?? 0 })) }));
    }
  };
  for (const host of hosts) fleet.connectHost(host.id, `node-${host.id}`, true);
  ingest(0);
  const fleetView = live.connect({});
  const member = watchMember(fleetView.socket);
  const gpuPage = live.connect({ fleet: false });
  const page = watchGpu(gpuPage.socket, hosts[0].gpus[0].uuid);
  await until(() => member.state().hasSnapshot && page.state().hasSnapshot, 30_000, "snapshots");
  const bytes = (frames: string[]) => frames.reduce((sum, frame) => sum + Buffer.byteLength(frame), 0);
  const snapshotBytes = { fleet: bytes(fleetView.frames), page: bytes(gpuPage.frames) };
  fleetView.frames.length = 0;
  gpuPage.frames.length = 0;
  for (let second = 1; second <= seconds; second += 1) {
    ingest(second);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const perSecond = { fleet: bytes(fleetView.frames) / seconds, page: bytes(gpuPage.frames) / seconds };
  console.log(JSON.stringify({ gpus: hosts.length * 8, seconds, snapshotBytes, bytesPerSecond: perSecond, fleetBytesPerGpuSecond: perSecond.fleet / (hosts.length * 8), pagePoints: page.state().points.length }));
  await live.close();
}

void main();
