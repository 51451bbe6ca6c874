import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { computeSlicesOf, gpuShareOf } from "@/lib/domain/gpu-share";
import { parseNvidiaSmiList } from "@/host/collector/nvidia-smi/parse-list";
import { readSharedFixture, sharedNvidiaSmiDir } from "@/host/collector/nvidia-smi/test-fixtures";
import { sharedFixturesForTests } from "@/server/testing/shared-fixtures";

const shared = sharedFixturesForTests(sharedNvidiaSmiDir, "gpuShareOf over the real MIG recordings");

describe("gpuShareOf", () => {
  it("a whole GPU is one GPU", () => {
    expect(gpuShareOf({ migProfile: null, name: "NVIDIA H100 80GB HBM3" })).toBe(1);
    expect(gpuShareOf({ migProfile: "", name: "NVIDIA A30" })).toBe(1);
  });

  it("a slice is its compute slices over the GPU's: 7 on A100/H100/H200/GH200/B200, 4 on A30", () => {
    expect(gpuShareOf({ migProfile: "7g.80gb", name: "NVIDIA H100 80GB HBM3" })).toBe(1);
    expect(gpuShareOf({ migProfile: "1g.10gb+me", name: "NVIDIA H100 80GB HBM3" })).toBeCloseTo(1 / 7, 12);
    expect(gpuShareOf({ migProfile: "4g.96gb", name: "NVIDIA GH200 480GB" })).toBeCloseTo(4 / 7, 12);
    expect(gpuShareOf({ migProfile: "2g.45gb", name: "NVIDIA B200" })).toBeCloseTo(2 / 7, 12);
    expect(computeSlicesOf("NVIDIA A30")).toBe(4);
    expect(gpuShareOf({ migProfile: "1g.6gb", name: "NVIDIA A30" })).toBe(1 / 4);
    expect(gpuShareOf({ migProfile: "2g.12gb", name: "NVIDIA A30" })).toBe(2 / 4);
    expect(gpuShareOf({ migProfile: "4g.24gb", name: "NVIDIA A30" })).toBe(1);
  });

  it("never more than a GPU, and a name of another form counts as a whole one", () => {
    expect(gpuShareOf({ migProfile: "8g.99gb", name: "NVIDIA A30" })).toBe(1);
    expect(gpuShareOf({ migProfile: "0g.1gb", name: "NVIDIA H100 80GB HBM3" })).toBe(1);
    expect(gpuShareOf({ migProfile: "weird", name: "NVIDIA H100 80GB HBM3" })).toBe(1);
  });
});

describe.runIf(shared)("gpuShareOf over the real MIG recordings (nvidia-smi -L, -q -x)", () => {
  const lists = shared ? readdirSync(path.join(sharedNvidiaSmiDir, "list")).filter((name) => name.endsWith(".txt")) : [];

  it("every profile in the -L recordings weighs its compute slices over 7, and a GPU's slices add up to at most one GPU", () => {
    const seen = new Map<string, number>();
    for (const file of lists) {
      for (const gpu of parseNvidiaSmiList(readSharedFixture(`list/${file}`))) {
        if (gpu.migDevices.length === 0) continue;
        let total = 0;
        for (const device of gpu.migDevices) {
          const share = gpuShareOf({ migProfile: device.profile, name: gpu.name });
          seen.set(`${gpu.name} ${device.profile}`, share);
          total += share;
        }
        expect(total).toBeLessThanOrEqual(1 + 1e-12);
      }
    }
    const h100 = "NVIDIA H100 80GB HBM3";
    const h200 = "NVIDIA H200";
    expect(Object.fromEntries(seen)).toEqual({
      [`${h100} 3g.40gb`]: 3 / 7,
      [`${h100} 2g.20gb`]: 2 / 7,
      [`${h100} 1g.10gb`]: 1 / 7,
      // Two compute instances of one 3g GPU instance: each its own compute slices, so the five add up to 7/7.
      [`${h200} 1c.3g.71gb`]: 1 / 7,
      [`${h200} 2c.3g.71gb`]: 2 / 7,
      [`${h200} 2g.35gb`]: 2 / 7,
      [`${h200} 1g.18gb`]: 1 / 7,
    });
  });

  it("the H100 split 3g + 2g + 1g + 1g, the H200 split five ways and an H100 in 7 × 1g.10gb are one GPU each", () => {
    const sums = lists.flatMap((file) =>
      parseNvidiaSmiList(readSharedFixture(`list/${file}`))
        .filter((gpu) => gpu.migDevices.length > 0)
        .map((gpu) => gpu.migDevices.reduce((sum, device) => sum + gpuShareOf({ migProfile: device.profile, name: gpu.name }), 0)),
    );
    expect(sums.length).toBe(10);
    for (const sum of sums) expect(sum).toBeCloseTo(1, 12);
  });

  it("A100 dumps (-q -x name no profile): a slice's share is its SMs over the 98 (7 × 14) MIG leaves the GPU's compute", () => {
    for (const file of ["netdata__a100-sxm4-mig.xml", "telegraf__a100-sxm4-v12.xml"]) {
      const xml = readSharedFixture(`xml/${file}`);
      const name = /<product_name>([^<]+)<\/product_name>/.exec(xml)![1]!;
      const devices = [...xml.matchAll(/<mig_device>[\s\S]*?<multiprocessor_count>(\d+)<\/multiprocessor_count>[\s\S]*?<total>(\d+) MiB<\/total>/g)];
      expect(devices.length).toBeGreaterThan(0);
      for (const [, sms, memory] of devices) {
        // The profile NVIDIA's guide gives that slice: 14 SMs a compute slice, memory rounded to GB.
        const profile = `${Number(sms) / 14}g.${Math.round(Number(memory) / 1024)}gb`;
        expect(["3g.20gb", "1g.20gb"]).toContain(profile);
        expect(gpuShareOf({ migProfile: profile, name })).toBeCloseTo(Number(sms) / 98, 12);
      }
    }
  });
});
