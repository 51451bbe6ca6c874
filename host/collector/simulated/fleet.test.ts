import { describe, expect, it } from "vitest";
import { simulatedFleet, type SimulatedHostSpec } from "./fleet";

const UUID = /^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PCI_BUS_ID = /^00000000:[0-9A-F]{2}:00\.0$/;

function gpuTotal(hosts: SimulatedHostSpec[]): number {
  return hosts.reduce((sum, host) => sum + host.gpus.length, 0);
}

describe("simulatedFleet, default", () => {
  it("has the four demo hosts with their models and memory", () => {
    const hosts = simulatedFleet({ seed: 7 });
    expect(hosts.map((h) => [h.hostName, h.gpus.length, h.model.name, h.model.memoryTotalMiB, h.model.powerLimitW])).toEqual([
      ["sim-h100-a", 8, "NVIDIA H100 80GB HBM3", 81559, 700],
      ["sim-a100-a", 4, "NVIDIA A100-SXM4-40GB", 40960, 400],
      ["sim-4090-a", 4, "NVIDIA GeForce RTX 4090", 24564, 450],
      ["sim-h100-mig", 1, "NVIDIA H100 80GB HBM3", 81559, 700],
    ]);
    for (const host of hosts) {
      expect(host.driverVersion).toMatch(/^\d+\.\d+\.\d+$/);
      expect(host.cudaVersion).toMatch(/^\d+\.\d+$/);
      expect(host.gpus.map((g) => g.index)).toEqual(host.gpus.map((_, i) => i));
    }
  });

  it("gives well-formed, unique UUIDs and PCI bus ids in ascending order", () => {
    const hosts = simulatedFleet({ seed: 7 });
    const uuids = hosts.flatMap((h) => h.gpus.map((g) => g.uuid));
    // 16 whole GPUs and the split H100.
    expect(new Set(uuids).size).toBe(17);
    for (const uuid of uuids) expect(uuid).toMatch(UUID);
    for (const host of hosts) {
      const buses = host.gpus.map((g) => g.pciBusId);
      for (const bus of buses) expect(bus).toMatch(PCI_BUS_ID);
      expect([...buses].sort()).toEqual(buses);
      expect(new Set(buses).size).toBe(buses.length);
    }
  });

  it("is stable for a seed and different for another", () => {
    expect(simulatedFleet({ seed: 7 })).toEqual(simulatedFleet({ seed: 7 }));
    const a = simulatedFleet({ seed: 7 }).flatMap((h) => h.gpus.map((g) => g.uuid));
    const b = simulatedFleet({ seed: 8 }).flatMap((h) => h.gpus.map((g) => g.uuid));
    expect(a.filter((uuid) => b.includes(uuid))).toEqual([]);
  });

  it("lays out every whole GPU in exactly one slot, with a squatter, a leak and a free GPU", () => {
    const hosts = simulatedFleet({ seed: 7 });
    for (const host of hosts) {
      expect(host.slots.flatMap((s) => s.gpus).sort((x, y) => x - y)).toEqual(host.gpus.filter((g) => !g.mig).map((g) => g.index));
    }
    const slots = hosts.flatMap((h) => h.slots);
    expect(slots.some((s) => s.role === "training" && s.squatterGpu !== null)).toBe(true);
    expect(slots.some((s) => s.role === "leak")).toBe(true);
    expect(slots.some((s) => s.role === "free" && s.shortJobChance === 0)).toBe(true);
  });

  it("splits the H100 of sim-h100-mig into four slices, each with its own workload and MIG UUID", () => {
    const host = simulatedFleet({ seed: 7 }).find((h) => h.hostName === "sim-h100-mig")!;
    const slices = host.gpus[0]!.mig!;
    expect(slices.map((s) => [s.deviceIndex, s.profile, s.gpuInstanceId, s.memoryTotalMiB, s.slot.role])).toEqual([
      [0, "3g.40gb", 2, 40448, "training"],
      [1, "2g.20gb", 3, 20096, "free"],
      [2, "1g.10gb", 9, 9984, "leak"],
      [3, "1g.10gb", 10, 9984, "free"],
    ]);
    for (const slice of slices) expect(slice.uuid).toMatch(/^MIG-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(new Set(slices.map((s) => s.uuid)).size).toBe(4);
    expect(simulatedFleet({ seed: 8 }).at(-1)!.gpus[0]!.mig!.map((s) => s.uuid).filter((uuid) => slices.some((s) => s.uuid === uuid))).toEqual([]);
  });
});

describe("simulatedFleet, large", () => {
  it.each([32, 96, 1000])("builds exactly %i GPUs on 8-GPU hosts", (gpuCount) => {
    const hosts = simulatedFleet({ seed: 3, gpuCount });
    expect(gpuTotal(hosts)).toBe(gpuCount);
    expect(hosts.every((h) => h.gpus.length === 8)).toBe(true);
    expect(new Set(hosts.map((h) => h.hostName)).size).toBe(hosts.length);
    expect(new Set(hosts.flatMap((h) => h.gpus.map((g) => g.uuid))).size).toBe(gpuCount);
  });

  it("puts the remainder on a last, smaller host and names hosts sim-<n>", () => {
    const hosts = simulatedFleet({ seed: 3, gpuCount: 13 });
    expect(hosts.map((h) => [h.hostName, h.gpus.length])).toEqual([
      ["sim-1", 8],
      ["sim-2", 5],
    ]);
  });

  it("mixes the three models and covers every GPU with a slot", () => {
    const hosts = simulatedFleet({ seed: 3, gpuCount: 96 });
    expect(new Set(hosts.map((h) => h.model.name)).size).toBe(3);
    for (const host of hosts) {
      expect(host.slots.flatMap((s) => s.gpus).sort((x, y) => x - y)).toEqual(host.gpus.map((g) => g.index));
    }
  });

  it("rejects a GPU count that is not a positive integer", () => {
    expect(() => simulatedFleet({ seed: 3, gpuCount: 0 })).toThrow(RangeError);
    expect(() => simulatedFleet({ seed: 3, gpuCount: 2.5 })).toThrow(RangeError);
  });
});
