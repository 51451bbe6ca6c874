import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type GpuCandidate, rankGpus } from "@/server/bookings/placement/rank-gpus";
import { sharedFixturesForTests } from "@/server/testing/shared-fixtures";
import { describeLink, linkBetween, parseTopology, type Topology } from "@/server/hosts/topology";

// The recorded layouts shared by the project's sessions (see ../shared/fixtures/topo/README.md).
const root = fileURLToPath(new URL("../..", import.meta.url));
const sharedTopo = path.join(root, "..", "shared", "fixtures", "topo");

function topology(file: string): Topology {
  const parsed = parseTopology(readFileSync(file, "utf8"));
  if (!parsed) throw new Error(`no matrix in ${file}`);
  return parsed;
}

const haveShared = sharedFixturesForTests(sharedTopo, "the shared topology fixtures");
/** Tests on the shared recordings run where the folder exists and are skipped, visibly, elsewhere. */
const itShared = haveShared ? it : it.skip;

const nvlinkPairs = () => topology(path.join(sharedTopo, "4x-nvlink-pairs.txt"));
const pcieSwitches = () => topology(path.join(sharedTopo, "4x-pcie-switches.txt"));
const nvswitch = () => topology(path.join(sharedTopo, "8x-nvswitch.txt"));

function idle(index: number, memoryFreeMiB = 80_000): GpuCandidate {
  return { index, busy: false, memoryFreeMiB };
}

describe("parseTopology", () => {
  itShared("reads NVLink pairs and the PCIe paths between them", () => {
    const topo = nvlinkPairs();
    expect(topo.gpus).toEqual([0, 1, 2, 3]);
    expect(linkBetween(topo, 0, 1)).toEqual({ kind: "NV", nvlinks: 4 });
    expect(linkBetween(topo, 3, 2)).toEqual({ kind: "NV", nvlinks: 4 });
    expect(linkBetween(topo, 1, 2)).toEqual({ kind: "SYS", nvlinks: 0 });
  });

  itShared("reads PCIe switches and NVSwitch systems", () => {
    expect(linkBetween(pcieSwitches(), 0, 1)?.kind).toBe("PIX");
    expect(linkBetween(pcieSwitches(), 1, 2)?.kind).toBe("NODE");
    const eight = nvswitch();
    expect(eight.gpus).toHaveLength(8);
    expect(linkBetween(eight, 0, 7)).toEqual({ kind: "NV", nvlinks: 18 });
  });

  it("reads a single-GPU host's capture and refuses text without a matrix", () => {
    const single = topology(path.join(root, "host", "collector", "fixtures", "h200-driver-580", "topo-m.txt"));
    expect(single.gpus).toEqual([0]);
    expect(single.links.size).toBe(0);
    expect(parseTopology("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.")).toBeNull();
  });

  it("reads the project's own crossed layout: NVLink beats a shared host bridge", () => {
    const topo = topology(path.join(root, "server", "hosts", "fixtures", "4x-crossed-nvlink.txt"));
    expect(linkBetween(topo, 0, 1)).toEqual({ kind: "NV", nvlinks: 2 });
    expect(linkBetween(topo, 0, 2)?.kind).toBe("PHB");
    const choice = rankGpus({ hostName: "node-x", count: 2, topology: topo, candidates: [idle(0, 60_000), idle(2, 80_000), idle(3, 80_000)] });
    expect(choice?.gpus).toEqual([2, 3]);
    expect(choice?.explanation).toContain("NVLink-connected (NV2)");
  });

  it("describes links in words", () => {
    expect(describeLink({ kind: "NV", nvlinks: 4 })).toBe("NVLink-connected (NV4)");
    expect(describeLink(null)).toBe("topology unknown");
  });
});

describe("rankGpus", () => {
  itShared("prefers an NVLink pair over GPUs with more free memory across NUMA nodes", () => {
    const choice = rankGpus({
      hostName: "node-b",
      count: 2,
      topology: nvlinkPairs(),
      candidates: [idle(0, 70_000), idle(1, 80_000), idle(2, 80_000), idle(3, 60_000)],
    });
    // 1 and 2 have the most free memory but only SYS between them.
    expect(choice?.gpus).toEqual([0, 1]);
    expect(choice?.explanation).toBe("0 and 1 on node-b: idle, NVLink-connected (NV4), 68 GiB free or more");
  });

  itShared("takes the other NVLink pair when one GPU of the first is not available", () => {
    const choice = rankGpus({ hostName: "node-b", count: 2, topology: nvlinkPairs(), candidates: [idle(1), idle(2), idle(3)] });
    expect(choice?.gpus).toEqual([2, 3]);
  });

  itShared("prefers GPUs on one PCIe switch when there is no NVLink", () => {
    const choice = rankGpus({ hostName: "node-c", count: 2, topology: pcieSwitches(), candidates: [idle(0), idle(2), idle(3, 70_000)] });
    expect(choice?.gpus).toEqual([2, 3]);
    expect(choice?.explanation).toContain("on one PCIe switch");
  });

  itShared("prefers idle GPUs over a closer pair with someone's process on it", () => {
    const choice = rankGpus({
      hostName: "node-b",
      count: 2,
      topology: nvlinkPairs(),
      candidates: [{ index: 0, busy: true, memoryFreeMiB: 80_000 }, idle(1), idle(2), idle(3)],
    });
    expect(choice?.gpus).toEqual([2, 3]);
  });

  itShared("on an NVSwitch system picks by free memory, then wear", () => {
    const candidates = [0, 1, 2, 3, 4, 5, 6, 7].map((index) => ({ ...idle(index, index === 5 ? 40_000 : 80_000), recentBookedHours: index < 3 ? 10 : 0 }));
    const choice = rankGpus({ hostName: "node-a", count: 2, topology: nvswitch(), candidates });
    expect(choice?.gpus).toEqual([3, 4]);
    expect(choice?.explanation).toContain("NVLink-connected (NV18)");
  });

  it("without topology picks idle GPUs with the most free memory", () => {
    const choice = rankGpus({ hostName: "node-d", count: 1, topology: null, candidates: [idle(0, 10_000), idle(1, 20_000), { index: 2, busy: true, memoryFreeMiB: 30_000 }] });
    expect(choice).toMatchObject({ gpus: [1], explanation: "1 on node-d: idle, 20 GiB free or more" });
  });

  it("honours the free-memory floor and answers null when too few GPUs qualify", () => {
    const candidates = [idle(0, 10_000), idle(1, 50_000), idle(2, 50_000)];
    expect(rankGpus({ hostName: "n", count: 2, topology: null, candidates, minFreeMemoryMiB: 40 * 1024 })?.gpus).toEqual([1, 2]);
    expect(rankGpus({ hostName: "n", count: 3, topology: null, candidates, minFreeMemoryMiB: 40 * 1024 })).toBeNull();
  });
});
