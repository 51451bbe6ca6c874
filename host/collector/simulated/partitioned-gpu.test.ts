import { describe, expect, it } from "vitest";
import { parseSnapshot, snapshotSchema, type Snapshot } from "@/lib/domain/snapshot";
import { parseNvidiaSmiList } from "@/host/collector/nvidia-smi/parse-list";
import { parseQueryTextMig } from "@/host/collector/nvidia-smi/parse-query-text";
import { readOwnFixture } from "@/host/collector/nvidia-smi/test-fixtures";
import { simulatedFleet, simulatedSnapshotAt } from "./simulated-source";

/** The demo fleet's split H100 (`sim-h100-mig`): its GPU, its four slices and their processes, as an agent reports them. */

const SEED = 42;
const MINUTE = 60_000;
const T0 = Date.UTC(2025, 2, 3);
const MIG_UUID = /^MIG-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const migHost = (seed: number | string = SEED) => simulatedFleet({ seed }).find((spec) => spec.hostName === "sim-h100-mig")!;

/** A simulated day, every five minutes. */
function dayOf(seed: number | string = SEED): Snapshot[] {
  const spec = migHost(seed);
  return Array.from({ length: (24 * 60) / 5 }, (_, i) => simulatedSnapshotAt(spec, seed, T0 + i * 5 * MINUTE));
}

describe("sim-h100-mig, the split H100 of the demo fleet", () => {
  const day = dayOf();

  it("reports one GPU in MIG mode and its four slices, which pass the snapshot schema", () => {
    for (const snapshot of day) {
      expect(snapshotSchema.safeParse(snapshot).error).toBeUndefined();
      expect(parseSnapshot(snapshot).success).toBe(true);
    }
    const [parent, ...slices] = day[0]!.gpus;
    expect(parent).toMatchObject({ index: 0, name: "NVIDIA H100 80GB HBM3", memoryTotalMiB: 81559, migMode: "Enabled", utilizationGpuPct: null, utilizationMemoryPct: null });
    expect(parent!.mig ?? null).toBeNull();
    expect(parent!.powerDrawW).toBeGreaterThan(0);
    expect(slices.map((slice) => [slice.index, slice.mig!.deviceIndex, slice.mig!.profile, slice.mig!.parentUuid])).toEqual([
      [0, 0, "3g.40gb", parent!.uuid],
      [0, 1, "2g.20gb", parent!.uuid],
      [0, 2, "1g.10gb", parent!.uuid],
      [0, 3, "1g.10gb", parent!.uuid],
    ]);
    for (const slice of slices) {
      expect(slice.uuid).toMatch(MIG_UUID);
      // nvidia-smi reports none of these per MIG device (mig-slices.ts slicesOf).
      expect([slice.utilizationGpuPct, slice.temperatureC, slice.powerDrawW, slice.smClockMHz, slice.fanSpeedPct]).toEqual([null, null, null, null, null]);
      expect(slice.migMode).toBe("Enabled");
    }
  });

  it("copies the real H100 recording: profiles, instance ids and memory per slice", () => {
    const [recorded] = parseQueryTextMig(readOwnFixture("h100-mig-recording", "query.txt"));
    const [listed] = parseNvidiaSmiList(readOwnFixture("h100-mig-recording", "list-L.txt"));
    const slices = day[0]!.gpus.filter((gpu) => gpu.mig);
    expect(slices.map((slice) => [slice.mig!.deviceIndex, slice.mig!.profile])).toEqual(listed!.migDevices.map((device) => [device.index, device.profile]));
    expect(slices.map((slice) => [slice.mig!.gpuInstanceId, slice.mig!.computeInstanceId, slice.memoryTotalMiB])).toEqual(
      recorded!.migDevices.map((device) => [device.gpuInstanceId, device.computeInstanceId, device.memoryTotalMiB]),
    );
  });

  it("adds its slices' memory up to its own, within the GPU's total", () => {
    for (const snapshot of day) {
      const [parent, ...slices] = snapshot.gpus;
      expect(slices.reduce((sum, slice) => sum + slice.memoryTotalMiB!, 0)).toBeLessThanOrEqual(parent!.memoryTotalMiB!);
      expect(slices.reduce((sum, slice) => sum + slice.memoryUsedMiB!, 0)).toBe(parent!.memoryUsedMiB);
      for (const slice of slices) expect(slice.memoryUsedMiB!).toBeLessThanOrEqual(slice.memoryTotalMiB!);
    }
  });

  it("places every process on its slice (its MIG UUID), none on the GPU, within the slice's memory", () => {
    let placed = 0;
    for (const snapshot of day) {
      const [parent, ...slices] = snapshot.gpus;
      for (const process of snapshot.processes) {
        expect(process.gpuUuid).not.toBe(parent!.uuid);
        expect(slices.map((slice) => slice.uuid)).toContain(process.gpuUuid);
        placed += 1;
      }
      for (const slice of slices) {
        const own = snapshot.processes.filter((process) => process.gpuUuid === slice.uuid);
        expect(own.reduce((sum, process) => sum + process.usedMemoryMiB!, 0)).toBeLessThanOrEqual(slice.memoryUsedMiB!);
      }
    }
    expect(placed).toBeGreaterThan(day.length);
  });

  it("runs a job on the 3g.40gb, a service on one 1g.10gb and nothing on the 2g.20gb and the other 1g.10gb", () => {
    const busy = (device: number) => day.filter((snapshot) => snapshot.processes.some((p) => p.gpuUuid === snapshot.gpus[device + 1]!.uuid)).length;
    expect(busy(0)).toBeGreaterThan(0.7 * day.length);
    expect(busy(1)).toBe(0);
    expect(busy(2)).toBeGreaterThan(0.9 * day.length);
    expect(busy(3)).toBe(0);
    const commands = new Set(day.flatMap((snapshot) => snapshot.processes.filter((p) => p.gpuUuid === snapshot.gpus[3]!.uuid).map((p) => p.command)));
    expect([...commands]).toEqual(["python serve_embeddings.py --port 8100 --workers 2"]);
    // A slice's workload sizes itself by the slice: the 1g.10gb's leak stays under 10 GB.
    const leak = day.flatMap((snapshot) => snapshot.processes.filter((p) => p.gpuUuid === snapshot.gpus[3]!.uuid).map((p) => p.usedMemoryMiB!));
    expect(Math.max(...leak)).toBeLessThan(9984);
  });

  it("reads the same for the same seed and time, and other UUIDs for another seed", () => {
    const t = T0 + 5 * 3_600_000 + 1234;
    expect(simulatedSnapshotAt(migHost(), SEED, t)).toEqual(simulatedSnapshotAt(migHost(), SEED, t));
    const mine = simulatedSnapshotAt(migHost(), SEED, t).gpus.map((gpu) => gpu.uuid);
    const other = simulatedSnapshotAt(migHost(SEED + 1), SEED + 1, t).gpus.map((gpu) => gpu.uuid);
    expect(mine.filter((uuid) => other.includes(uuid))).toEqual([]);
  });

  it("draws its power from its slices' load: more with the job running than between jobs", () => {
    const power = (running: boolean) =>
      day.filter((snapshot) => snapshot.processes.some((p) => p.gpuUuid === snapshot.gpus[1]!.uuid) === running).map((snapshot) => snapshot.gpus[0]!.powerDrawW!);
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    expect(power(false).length).toBeGreaterThan(0);
    expect(mean(power(true))).toBeGreaterThan(mean(power(false)) + 100);
    for (const snapshot of day) expect(snapshot.gpus[0]!.powerDrawW!).toBeLessThanOrEqual(700);
  });
});

describe("large simulated fleets", () => {
  it("have no GPU in MIG mode", () => {
    const fleet = simulatedFleet({ seed: 3, gpuCount: 96 });
    expect(fleet.some((spec) => spec.hostName === "sim-h100-mig" || spec.gpus.some((gpu) => gpu.mig))).toBe(false);
  });
});
