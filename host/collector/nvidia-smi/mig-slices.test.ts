import { describe, expect, it } from "vitest";
import type { GpuSample } from "@/lib/domain/snapshot";
import { type MigLayout, placeProcesses, withSlices } from "@/host/collector/nvidia-smi/mig-slices";
import { parseComputeAppsCsv, parseQueryGpuCsv } from "@/host/collector/nvidia-smi/parse-csv";
import { parseNvidiaSmiList } from "@/host/collector/nvidia-smi/parse-list";
import { parseQueryTextMig } from "@/host/collector/nvidia-smi/parse-query-text";
import { parseNvidiaSmiXml } from "@/host/collector/nvidia-smi/parse-xml";
import { readCaptureSections, readOwnFixture, readSharedFixture, sharedNvidiaSmiDir } from "@/host/collector/nvidia-smi/test-fixtures";
import { sharedFixturesForTests } from "@/server/testing/shared-fixtures";

/**
 * Every MIG recording in the fixtures, read as slices: the real H100 and H200
 * captures (`-L`, `-q` idle and under load, the CSV queries), the real A100
 * XML dumps, the real 8×H100 `-L`, and the project's constructed mig-host.
 */

const describeShared = sharedFixturesForTests(sharedNvidiaSmiDir, "the MIG tests on the real nvidia-smi corpus") ? describe : describe.skip;

function capture(name: string) {
  const sections = readCaptureSections(readSharedFixture(`captures/${name}`));
  const section = (title: string) => {
    const found = sections.find((s) => s.title === title);
    if (!found) throw new Error(`${name} has no section ${title}`);
    return found.output;
  };
  return section;
}

function layoutFrom(list: string, report: ReturnType<typeof parseQueryTextMig>): MigLayout {
  const listed = parseNvidiaSmiList(list);
  return { gpus: report.map((gpu) => ({ uuid: gpu.uuid!, migDevices: gpu.migDevices, processes: gpu.processes, listed: listed.find((l) => l.uuid === gpu.uuid) ?? null })) };
}

const slicesOnly = (gpus: GpuSample[]) => gpus.filter((gpu) => gpu.mig);
const row = (gpu: GpuSample) => [gpu.mig!.deviceIndex, gpu.mig!.profile, gpu.mig!.gpuInstanceId, gpu.mig!.computeInstanceId, gpu.uuid, gpu.memoryTotalMiB, gpu.memoryUsedMiB];

describeShared("H100 80GB HBM3 split 3g.40gb + 2g.20gb + 1g.10gb + 1g.10gb (real capture)", () => {
  const section = capture("utkuozdemir__linux-x86_64__nvidia-h100-mig__590.48.01.txt");
  const list = section("capabilities :: list (-L)");
  const gpuCsv = section("load :: query-gpu (csv, what the exporter parses)");

  it("under load: four slices with their instance ids, UUIDs and memory; the three processes on the 3g.40gb", () => {
    const report = parseQueryTextMig(section("load :: query (-q)"));
    expect(report).toHaveLength(1);
    expect(report[0]!.uuid).toBe("GPU-00000000-0000-0000-0000-000000000000");
    const layout = layoutFrom(list, report);
    const gpus = withSlices(parseQueryGpuCsv(gpuCsv).map((r) => r.gpu), layout);
    expect(gpus).toHaveLength(5);
    expect(slicesOnly(gpus).map(row)).toEqual([
      [0, "3g.40gb", 2, 0, "MIG-00000000-0000-0000-0000-000000000000", 40448, 11091],
      [1, "2g.20gb", 3, 0, "MIG-00000001-0000-0000-0000-000000000001", 20096, 17],
      [2, "1g.10gb", 9, 0, "MIG-00000002-0000-0000-0000-000000000002", 9984, 9],
      [3, "1g.10gb", 10, 0, "MIG-00000003-0000-0000-0000-000000000003", 9984, 9],
    ]);
    for (const slice of slicesOnly(gpus)) {
      expect(slice).toMatchObject({ index: 0, utilizationGpuPct: null, powerDrawW: null, migMode: "Enabled" });
      expect(slice.mig!.parentUuid).toBe("GPU-00000000-0000-0000-0000-000000000000");
    }
    const apps = parseComputeAppsCsv(section("load :: query-compute-apps (per-process)"));
    expect(new Set(apps.map((a) => a.gpuUuid))).toEqual(new Set(["GPU-00000000-0000-0000-0000-000000000000"]));
    const placed = placeProcesses(apps, gpus, layout);
    expect(placed.map((p) => [p.pid, p.gpuUuid, p.usedMemoryMiB])).toEqual([
      [21180, "MIG-00000000-0000-0000-0000-000000000000", 2296],
      [21181, "MIG-00000000-0000-0000-0000-000000000000", 1272],
      [21198, "MIG-00000000-0000-0000-0000-000000000000", 7484],
    ]);
  });

  it("idle: the same slices, no process", () => {
    const report = parseQueryTextMig(section("idle :: query (-q)"));
    expect(report[0]!.processes).toEqual([]);
    expect(report[0]!.migDevices.map((d) => [d.index, d.gpuInstanceId, d.computeInstanceId, d.memoryTotalMiB])).toEqual([
      [0, 2, 0, 40448],
      [1, 3, 0, 20096],
      [2, 9, 0, 9984],
      [3, 10, 0, 9984],
    ]);
  });
});

describeShared("H200 split 1c.3g.71gb + 2c.3g.71gb (one GPU instance) + 2g.35gb + 1g.18gb ×2 (real capture)", () => {
  const section = capture("utkuozdemir__linux-x86_64__nvidia-h200-mig__590.48.01.txt");

  it("five slices; the two compute instances of GPU instance 2 share its memory; processes on compute instance 1", () => {
    const report = parseQueryTextMig(section("load :: query (-q)"));
    const layout = layoutFrom(section("capabilities :: list (-L)"), report);
    const gpus = withSlices(parseQueryGpuCsv(section("load :: query-gpu (csv, what the exporter parses)")).map((r) => r.gpu), layout);
    const slices = slicesOnly(gpus);
    expect(slices.map((s) => [s.mig!.deviceIndex, s.mig!.profile, s.mig!.gpuInstanceId, s.mig!.computeInstanceId, s.memoryTotalMiB])).toEqual([
      [0, "1c.3g.71gb", 2, 0, 71424],
      [1, "2c.3g.71gb", 2, 1, 71424],
      [2, "2g.35gb", 3, 0, 33280],
      [3, "1g.18gb", expect.any(Number), 0, expect.any(Number)],
      [4, "1g.18gb", expect.any(Number), 0, expect.any(Number)],
    ]);
    const placed = placeProcesses(parseComputeAppsCsv(section("load :: query-compute-apps (per-process)")), gpus, layout);
    expect(placed.map((p) => [p.pid, p.gpuUuid])).toEqual([
      [12249, "MIG-00000001-0000-0000-0000-000000000001"],
      [12250, "MIG-00000001-0000-0000-0000-000000000001"],
      [12267, "MIG-00000001-0000-0000-0000-000000000001"],
    ]);
  });

  it("idle: five MIG devices, no process", () => {
    const [gpu] = parseQueryTextMig(section("idle :: query (-q)"));
    expect(gpu!.migDevices).toHaveLength(5);
    expect(gpu!.processes).toEqual([]);
  });
});

describeShared("A100 dumps with MIG (real -q -x) and 8×H100 7×1g.10gb (real -L)", () => {
  it("A100-SXM4-40GB (netdata): two 3g.20gb-sized devices, GI 1 and 2", () => {
    const [gpu] = parseNvidiaSmiXml(readSharedFixture("xml/netdata__a100-sxm4-mig.xml")).gpus;
    expect(gpu!.gpu.migMode).toBe("Enabled");
    expect(gpu!.migDevices.map((d) => [d.gpuInstanceId, d.computeInstanceId, d.memoryTotalMiB])).toEqual([
      [1, 0, 19968],
      [2, 0, 19968],
    ]);
  });

  it("A100-SXM4-80GB (telegraf): four devices, GI 3 to 6", () => {
    const [gpu] = parseNvidiaSmiXml(readSharedFixture("xml/telegraf__a100-sxm4-v12.xml")).gpus;
    expect(gpu!.migDevices.map((d) => [d.gpuInstanceId, d.computeInstanceId, d.memoryTotalMiB])).toEqual([
      [3, 0, 19968],
      [4, 0, 19968],
      [5, 0, 19968],
      [6, 0, 19968],
    ]);
  });

  it("8×H100 split 7×1g.10gb: 56 slices, each named by its own MIG UUID and GPU:device index", () => {
    const listed = parseNvidiaSmiList(readSharedFixture("list/utkuozdemir__list_gpus__8xH100-MIG-7x1g.10gb.txt"));
    const parents: GpuSample[] = listed.map((l) => ({
      index: l.index, uuid: l.uuid, name: l.name, pciBusId: null, memoryTotalMiB: 81559, memoryUsedMiB: 0, utilizationGpuPct: null, utilizationMemoryPct: null,
      temperatureC: null, powerDrawW: null, powerLimitW: null, fanSpeedPct: null, smClockMHz: null, pstate: null, migMode: "Enabled", eccErrorsUncorrected: 0,
    }));
    const layout: MigLayout = { gpus: listed.map((l) => ({ uuid: l.uuid, listed: l, migDevices: [], processes: [] })) };
    const slices = slicesOnly(withSlices(parents, layout));
    expect(slices).toHaveLength(56);
    expect(new Set(slices.map((s) => s.uuid)).size).toBe(56);
    expect(slices[8]).toMatchObject({ index: 1, uuid: "MIG-ccc16071-140d-56e7-a906-540ad8b39bd5", mig: { deviceIndex: 1, profile: "1g.10gb" }, memoryTotalMiB: null });
  });
});

describe("mig-host (constructed): -q -x and -L joined", () => {
  it("slices with memory, processes placed by their GPU instance", () => {
    const xml = parseNvidiaSmiXml(readOwnFixture("mig-host", "query-xml.xml"));
    const listed = parseNvidiaSmiList(readOwnFixture("mig-host", "list-L.txt"));
    const layout: MigLayout = { gpus: xml.gpus.map((g) => ({ uuid: g.gpu.uuid, listed: listed.find((l) => l.uuid === g.gpu.uuid) ?? null, migDevices: g.migDevices, processes: g.processes })) };
    const gpus = withSlices(xml.gpus.map((g) => g.gpu), layout);
    const slices = slicesOnly(gpus);
    expect(slices.length).toBeGreaterThan(0);
    expect(slices[0]!.memoryTotalMiB).toBe(40192);
    const apps = parseComputeAppsCsv(readOwnFixture("mig-host", "query-compute-apps__load.csv"));
    const placed = placeProcesses(apps, gpus, layout);
    const byPid = new Map(placed.map((p) => [p.pid, p.gpuUuid]));
    expect(byPid.get(7311)).toBe(slices.find((s) => s.mig!.gpuInstanceId === 1)!.uuid);
    expect(byPid.get(7458)).toBe(slices.find((s) => s.mig!.gpuInstanceId === 2)!.uuid);
  });
});

describe("the H100 recording replayed (host/collector/fixtures/h100-mig-recording)", () => {
  it("its -q text is the capture's and parses to four MIG devices", () => {
    const [gpu] = parseQueryTextMig(readOwnFixture("h100-mig-recording", "query.txt"));
    expect(gpu!.migDevices).toHaveLength(4);
    expect(gpu!.processes.map((p) => [p.pid, p.gpuInstanceId, p.computeInstanceId])).toEqual([
      [21180, 2, 0],
      [21181, 2, 0],
      [21198, 2, 0],
    ]);
  });
});
