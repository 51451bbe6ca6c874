import { describe, expect, it } from "vitest";
import { parseNvidiaSmiList } from "@/host/collector/nvidia-smi/parse-list";
import { readOwnFixture } from "@/host/collector/nvidia-smi/test-fixtures";

describe("nvidia-smi -L", () => {
  it("reads the real H200 list", () => {
    expect(parseNvidiaSmiList(readOwnFixture("h200-driver-580", "list-L.txt"))).toEqual([
      { index: 0, name: "NVIDIA H200", uuid: "GPU-ef2803ab-ed44-fce3-aa80-5f09cb377b2d", migDevices: [] },
    ]);
  });

  it("reads two GPUs", () => {
    const gpus = parseNvidiaSmiList(readOwnFixture("two-gpu-host", "list-L.txt"));
    expect(gpus.map((g) => [g.index, g.name, g.uuid.slice(0, 12)])).toEqual([
      [0, "NVIDIA A100 80GB PCIe", "GPU-fcd5b05f"],
      [1, "NVIDIA A100 80GB PCIe", "GPU-9fafbc76"],
    ]);
  });

  it("reads MIG devices under their GPU", () => {
    const [gpu] = parseNvidiaSmiList(readOwnFixture("mig-host", "list-L.txt"));
    expect(gpu.migDevices).toEqual([
      { profile: "4g.40gb", index: 0, uuid: "MIG-368e74fa-6b37-46e3-878f-719b514e002e" },
      { profile: "3g.40gb", index: 1, uuid: "MIG-a516cd3c-d872-4b09-881c-abb27dc1430f" },
    ]);
  });

  it("reads CRLF output and ignores lines of other forms", () => {
    const text = `${readOwnFixture("windows-host", "list-L.txt")}\r\nNo devices were found\r\n  MIG garbage\r\n`;
    expect(parseNvidiaSmiList(text)).toEqual([
      { index: 0, name: "NVIDIA GeForce RTX 4070", uuid: "GPU-e7f66044-8d38-49aa-bc5d-b2a0038511b9", migDevices: [] },
    ]);
  });

  it("reads the older MIG UUID form (MIG-GPU-…/gi/ci)", () => {
    const text = "GPU 0: A100-SXM4-40GB (UUID: GPU-5f4e)\n  MIG 3g.20gb Device 0: (UUID: MIG-GPU-5f4e/1/0)\n";
    expect(parseNvidiaSmiList(text)[0].migDevices).toEqual([{ profile: "3g.20gb", index: 0, uuid: "MIG-GPU-5f4e/1/0" }]);
  });
});
