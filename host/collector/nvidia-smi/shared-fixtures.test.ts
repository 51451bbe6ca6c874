import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { GpuSample } from "@/lib/domain/snapshot";
import { parseComputeAppsCsv, parseCsvTable, parseQueryGpuCsv } from "@/host/collector/nvidia-smi/parse-csv";
import { parseNvidiaSmiList } from "@/host/collector/nvidia-smi/parse-list";
import { parseNvidiaSmiXml } from "@/host/collector/nvidia-smi/parse-xml";
import { sharedFixturesForTests } from "@/server/testing/shared-fixtures";
import {
  hasSharedFixtures,
  queriedFields,
  readCaptureSections,
  readSharedFixture,
  sharedNvidiaSmiDir,
} from "@/host/collector/nvidia-smi/test-fixtures";

/**
 * The real nvidia-smi corpus in ../shared/fixtures/nvidia-smi (see its
 * SOURCES.md). Expected values were read off the files by hand and by an
 * independent script; the project's own fixtures cover the same cases for
 * checkouts without this folder.
 */

const describeShared = sharedFixturesForTests(sharedNvidiaSmiDir, "the tests on the real nvidia-smi corpus") ? describe : describe.skip;

const MASKED = "GPU-00000000-0000-0000-0000-000000000000";
const pids = (text: string) => parseComputeAppsCsv(text).map((p) => [p.pid, p.name, p.usedMemoryMiB]);

type GpuExpectation = Partial<GpuSample> & { name: string };

describeShared("real --query-gpu CSV (../shared csv/)", () => {
  const cases: [string, GpuExpectation][] = [
    [
      "netdata__tesla-p100__query-gpu_format-csv-nounits.csv",
      // Header with units but values without: `--format=csv,nounits`. No index or total in the query.
      { index: 0, name: "Tesla P100-PCIE-16GB", uuid: "GPU-ef1b2c9b-38d8-2090-2bd1-f567a3eb42a6", memoryTotalMiB: null, memoryUsedMiB: 0, utilizationGpuPct: 0, temperatureC: 37, powerDrawW: 28.16, fanSpeedPct: null, smClockMHz: 405, pstate: "P0" },
    ],
    [
      "utkuozdemir__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__query-gpu_all-fields_format-csv__idle.csv",
      { name: "NVIDIA H100 80GB HBM3", uuid: MASKED, pciBusId: "00000000:00:09.0", memoryTotalMiB: 81559, memoryUsedMiB: 0, utilizationGpuPct: 0, utilizationMemoryPct: 0, temperatureC: 41, powerDrawW: 69.85, powerLimitW: 700, fanSpeedPct: null, smClockMHz: 345, migMode: "Disabled", eccErrorsUncorrected: 0 },
    ],
    [
      "utkuozdemir__linux-x86_64__nvidia-h100-mig__590.48.01__query-gpu_all-fields_format-csv__load.csv",
      { name: "NVIDIA H100 80GB HBM3", memoryTotalMiB: 81559, memoryUsedMiB: 11125, utilizationGpuPct: null, utilizationMemoryPct: null, temperatureC: 53, powerDrawW: 433.78, migMode: "Enabled" },
    ],
    [
      "utkuozdemir__linux-x86_64__nvidia-h200-mig__590.48.01__query-gpu_all-fields_format-csv__load.csv",
      { name: "NVIDIA H200", pciBusId: "00000000:83:00.0", memoryTotalMiB: 143771, memoryUsedMiB: 16959, utilizationGpuPct: null, utilizationMemoryPct: null, powerDrawW: 295.01, powerLimitW: 700, smClockMHz: 1980, migMode: "Enabled" },
    ],
    [
      "utkuozdemir__linux-x86_64__nvidia-l40s__595.80__query-gpu_all-fields_format-csv__load.csv",
      { name: "NVIDIA L40S", memoryTotalMiB: 46068, memoryUsedMiB: 1235, utilizationGpuPct: 9, utilizationMemoryPct: 2, temperatureC: 54, powerDrawW: 110.23, powerLimitW: 350, smClockMHz: 2520, pstate: "P0", migMode: null, eccErrorsUncorrected: 0 },
    ],
    [
      "utkuozdemir__windows-x86_64__nvidia-geforce-rtx-2080-super__610.62__query-gpu_all-fields_format-csv__load.csv",
      { name: "NVIDIA GeForce RTX 2080 SUPER", pciBusId: "00000000:0C:00.0", memoryTotalMiB: 8192, memoryUsedMiB: 1366, utilizationGpuPct: 7, utilizationMemoryPct: 3, temperatureC: 44, powerDrawW: 97.99, powerLimitW: 250, fanSpeedPct: 38, smClockMHz: 2040, pstate: "P2", migMode: null, eccErrorsUncorrected: null },
    ],
  ];

  it.each(cases)("%s", (file, expected) => {
    const rows = parseQueryGpuCsv(readSharedFixture(`csv/${file}`));
    expect(rows).toHaveLength(1);
    expect(rows[0].gpu).toMatchObject(expected);
  });

  it("keeps every one of the 200+ columns aligned with its header", () => {
    const text = readSharedFixture(`csv/${cases[5][0]}`);
    const table = parseCsvTable(text, "gpu");
    expect(table.columns).toHaveLength(239);
    expect(table.rows[0]["driver_model.current"]).toBe("WDDM");
    expect(table.rows[0]["bbx.time_run"]).toBeNull(); // [Function Not Found]
    expect(table.rows[0].driver_version).toBe("610.62");
  });
});

describeShared("real --query-compute-apps CSV (../shared csv/)", () => {
  const file = (name: string) => readSharedFixture(`csv/utkuozdemir__${name}__query-compute-apps__load.csv`);

  it("H100", () => {
    expect(pids(file("linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01"))).toEqual([
      [11327, "/root/tools/memhog", 2566],
      [11328, "/root/tools/memhog", 1542],
      [11345, "./gpu_burn", 15690],
    ]);
  });

  it("H100 in MIG mode: rows carry the parent GPU UUID", () => {
    const rows = parseComputeAppsCsv(file("linux-x86_64__nvidia-h100-mig__590.48.01"));
    expect(rows.map((r) => [r.pid, r.usedMemoryMiB])).toEqual([
      [21180, 2296],
      [21181, 1272],
      [21198, 7484],
    ]);
    expect(rows.every((r) => r.gpuUuid === MASKED && r.timestamp === "2026/07/14 09:00:44.742")).toBe(true);
  });

  it("H100 in MIG mode, idle: header only", () => {
    const text = readSharedFixture(
      "csv/utkuozdemir__linux-x86_64__nvidia-h100-mig__590.48.01__query-compute-apps__idle_header-only.csv",
    );
    expect(parseComputeAppsCsv(text)).toEqual([]);
  });

  it("H200 in MIG mode", () => {
    expect(pids(file("linux-x86_64__nvidia-h200-mig__590.48.01"))).toEqual([
      [12249, "/root/tools/memhog", 2194],
      [12250, "/root/tools/memhog", 1170],
      [12267, "./gpu_burn", 13526],
    ]);
  });

  it("L40S", () => {
    expect(pids(file("linux-x86_64__nvidia-l40s__595.80"))).toEqual([
      [20037, "ffmpeg", 538],
      [20038, "ffmpeg", 681],
    ]);
  });

  it("RTX 4080 SUPER", () => {
    expect(pids(file("linux-x86_64__nvidia-geforce-rtx-4080-super__595.71.05"))).toEqual([
      [2165, "/usr/bin/kwin_wayland", 25],
      [5022, "ffmpeg", 503],
      [5021, "ffmpeg", 360],
    ]);
  });

  it("Windows: 21 processes, Windows paths, memory N/A", () => {
    const rows = parseComputeAppsCsv(file("windows-x86_64__nvidia-geforce-rtx-2080-super__610.62"));
    expect(rows).toHaveLength(21);
    expect(rows.every((r) => r.usedMemoryMiB === null)).toBe(true);
    expect(rows[0]).toMatchObject({ pid: 2140, name: "C:\\Windows\\System32\\dwm.exe" });
    expect(rows.find((r) => r.pid === 23988)?.name).toBe("C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe");
    expect(rows[20].name).toMatch(/^C:\\Users\\utku\\AppData\\Local\\.*\\ffmpeg\.exe$/);
  });
});

describeShared("real nvidia-smi -L (../shared list/)", () => {
  it("H100 with four MIG devices", () => {
    const gpus = parseNvidiaSmiList(readSharedFixture("list/utkuozdemir__linux-x86_64__nvidia-h100-mig__590.48.01__list-L.txt"));
    expect(gpus).toHaveLength(1);
    expect(gpus[0].name).toBe("NVIDIA H100 80GB HBM3");
    expect(gpus[0].migDevices.map((m) => m.profile)).toEqual(["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]);
    expect(gpus[0].migDevices[3].uuid).toBe("MIG-00000003-0000-0000-0000-000000000003");
  });

  it("H200 with the wider profile column", () => {
    const [gpu] = parseNvidiaSmiList(readSharedFixture("list/utkuozdemir__linux-x86_64__nvidia-h200-mig__590.48.01__list-L.txt"));
    expect(gpu.migDevices.map((m) => [m.index, m.profile])).toEqual([
      [0, "1c.3g.71gb"],
      [1, "2c.3g.71gb"],
      [2, "2g.35gb"],
      [3, "1g.18gb"],
      [4, "1g.18gb"],
    ]);
  });

  it("8× H100, each split into seven 1g.10gb", () => {
    const gpus = parseNvidiaSmiList(readSharedFixture("list/utkuozdemir__list_gpus__8xH100-MIG-7x1g.10gb.txt"));
    expect(gpus.map((g) => g.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(gpus.every((g) => g.migDevices.length === 7 && g.migDevices.every((m) => m.profile === "1g.10gb"))).toBe(true);
    expect(gpus[0].uuid).toBe("GPU-63d1e50a-b952-d15c-0740-12bc14859142");
    expect(gpus[0].migDevices[0].uuid).toBe("MIG-4d0efb7d-0970-51d9-b761-0686be6b8af3");
    expect(gpus[3].uuid).toBe("GPU-8e70d727-bd2d-0723-0bf5-015d93cb90e6");
  });
});

interface CaptureExpectation {
  gpu: string;
  driver: string;
  totalMiB: number;
  mig: "Enabled" | "Disabled" | null;
  idle: { usedMiB: number; util: number | null; pids: number[] };
  load: { usedMiB: number; util: number | null; pids: number[] };
  migDevices: number;
}

// Read off each capture's idle/load query sections.
const CAPTURES: Record<string, CaptureExpectation> = {
  "linux-x86_64__nvidia-geforce-rtx-2080-super__610.57.04": {
    gpu: "NVIDIA GeForce RTX 2080 SUPER", driver: "610.57.04", totalMiB: 8192, mig: null, migDevices: 0,
    idle: { usedMiB: 211, util: 0, pids: [] },
    load: { usedMiB: 815, util: 8, pids: [28512, 28511] },
  },
  "linux-x86_64__nvidia-geforce-rtx-4080-super__595.71.05": {
    gpu: "NVIDIA GeForce RTX 4080 SUPER", driver: "595.71.05", totalMiB: 16376, mig: null, migDevices: 0,
    idle: { usedMiB: 596, util: 0, pids: [2165] },
    load: { usedMiB: 1474, util: 7, pids: [2165, 5022, 5021] },
  },
  "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01": {
    gpu: "NVIDIA H100 80GB HBM3", driver: "590.48.01", totalMiB: 81559, mig: "Disabled", migDevices: 0,
    idle: { usedMiB: 0, util: 0, pids: [] },
    load: { usedMiB: 19818, util: 100, pids: [11327, 11328, 11345] },
  },
  "linux-x86_64__nvidia-h100-mig__590.48.01": {
    gpu: "NVIDIA H100 80GB HBM3", driver: "590.48.01", totalMiB: 81559, mig: "Enabled", migDevices: 4,
    idle: { usedMiB: 59, util: null, pids: [] },
    load: { usedMiB: 11125, util: null, pids: [21180, 21181, 21198] },
  },
  "linux-x86_64__nvidia-h200-mig__590.48.01": {
    gpu: "NVIDIA H200", driver: "590.48.01", totalMiB: 143771, mig: "Enabled", migDevices: 5,
    idle: { usedMiB: 55, util: null, pids: [] },
    load: { usedMiB: 16959, util: null, pids: [12249, 12250, 12267] },
  },
  "linux-x86_64__nvidia-h200__590.48.01": {
    gpu: "NVIDIA H200", driver: "590.48.01", totalMiB: 143771, mig: "Disabled", migDevices: 0,
    idle: { usedMiB: 0, util: 0, pids: [] },
    load: { usedMiB: 32362, util: 100, pids: [10291, 10293, 10309] },
  },
  "linux-x86_64__nvidia-l40s__595.80": {
    gpu: "NVIDIA L40S", driver: "595.80", totalMiB: 46068, mig: null, migDevices: 0,
    idle: { usedMiB: 0, util: 100, pids: [] },
    load: { usedMiB: 1235, util: 9, pids: [20037, 20038] },
  },
  "windows-x86_64__nvidia-geforce-rtx-2080-super__610.62": {
    gpu: "NVIDIA GeForce RTX 2080 SUPER", driver: "610.62", totalMiB: 8192, mig: null, migDevices: 0,
    idle: { usedMiB: 797, util: 0, pids: [2140, 13264, 13504, 13160, 14872, 14808, 16760, 17648, 15964, 17840, 19052, 20440, 21912, 22412, 23480, 23988, 19956, 2164, 13092] },
    load: { usedMiB: 1366, util: 7, pids: [2140, 13264, 13504, 13160, 14872, 14808, 16760, 17648, 15964, 17840, 19052, 20440, 21912, 22412, 23480, 23988, 19956, 2164, 13092, 12940, 13820] },
  },
};

describeShared("query sections of real capture files (../shared captures/)", () => {
  it("has an expectation for every capture file", () => {
    const files = readdirSync(path.join(sharedNvidiaSmiDir, "captures")).map((f) => f.replace(/^utkuozdemir__|\.txt$/g, ""));
    expect(files.sort()).toEqual(Object.keys(CAPTURES).sort());
  });

  describe.each(Object.entries(CAPTURES))("%s", (name, expected) => {
    const sections = hasSharedFixtures ? readCaptureSections(readSharedFixture(`captures/utkuozdemir__${name}.txt`)) : [];
    const section = (phase: string, kind: string) => {
      const found = sections.find((s) => s.title.startsWith(`${phase} :: `) && s.command.startsWith(`nvidia-smi --query-${kind}=`));
      if (!found) throw new Error(`no ${phase} ${kind} section`);
      return found;
    };

    it.each(["idle", "load"] as const)("%s: GPU and processes", (phase) => {
      const [row] = parseQueryGpuCsv(section(phase, "gpu").output);
      expect(row.driverVersion).toBe(expected.driver);
      expect(row.gpu).toMatchObject({
        index: 0,
        name: expected.gpu,
        memoryTotalMiB: expected.totalMiB,
        memoryUsedMiB: expected[phase].usedMiB,
        utilizationGpuPct: expected[phase].util,
        migMode: expected.mig,
      });
      const apps = parseComputeAppsCsv(section(phase, "compute-apps").output);
      expect(apps.map((a) => a.pid)).toEqual(expected[phase].pids);
      expect(apps.every((a) => a.gpuUuid === MASKED && a.name !== "")).toBe(true);
      if (!name.startsWith("windows")) expect(apps.every((a) => a.usedMemoryMiB !== null && a.usedMemoryMiB > 0)).toBe(true);
    });

    it("-L lists the GPU and its MIG devices", () => {
      const section = sections.find((s) => s.command === "nvidia-smi -L");
      const gpus = parseNvidiaSmiList(section?.output ?? "");
      expect(gpus.map((g) => [g.index, g.name, g.uuid])).toEqual([[0, expected.gpu, MASKED]]);
      expect(gpus[0].migDevices).toHaveLength(expected.migDevices);
    });

    it("every other --query-… section parses into rows as wide as its header", () => {
      const queries = sections.filter((s) => /^nvidia-smi --query-/.test(s.command));
      expect(queries.length).toBeGreaterThanOrEqual(8);
      for (const q of queries) {
        const lines = q.output.split("\n").filter((l) => l.trim() !== "");
        const table = parseCsvTable(q.output, q.command.includes("--query-gpu=") ? "gpu" : "compute-apps");
        expect(table.columns).toHaveLength(queriedFields(q.command).length);
        expect(table.rows).toHaveLength(lines.length - 1);
      }
    });
  });
});

interface XmlExpectation {
  driver: string | null;
  cuda: string | null;
  gpus: (Partial<GpuSample> & { processes: number; firstProcess?: { pid: number; name: string; usedMemoryMiB: number | null } })[];
}

// Values read off the dumps by an independent script (Python's ElementTree).
const XML: Record<string, XmlExpectation> = {
  "netdata__a100-sxm4-mig.xml": { driver: "510.47.03", cuda: "11.6", gpus: [
    { name: "NVIDIA A100-SXM4-40GB", uuid: "GPU-27b94a00-ed54-5c24-b1fd-1054085de32a", memoryTotalMiB: 40960, memoryUsedMiB: 38, utilizationGpuPct: null, powerDrawW: 66.92, powerLimitW: 400, migMode: "Enabled", processes: 0 }] },
  "netdata__rtx-2080-win.xml": { driver: "516.59", cuda: "11.7", gpus: [
    { name: "NVIDIA GeForce RTX 2080", uuid: "GPU-fbd55ed4-1eec-4423-0a47-ad594b4333e3", memoryTotalMiB: 8192, memoryUsedMiB: 862, utilizationGpuPct: 2, powerDrawW: 14.5, powerLimitW: 275, migMode: null, processes: 26, firstProcess: { pid: 7724, name: "C:\\Program Files\\WindowsApps\\Microsoft.YourPhone_1.22062.543.0_x64__8wekyb3d8bbwe\\PhoneExperienceHost.exe", usedMemoryMiB: null } }] },
  "netdata__rtx-3060.xml": { driver: "515.65.01", cuda: "11.7", gpus: [
    { name: "NVIDIA GeForce RTX 3060 Laptop GPU", uuid: "GPU-473d8d0f-d462-185c-6b36-6fc23e23e571", memoryTotalMiB: 6144, memoryUsedMiB: 5, utilizationGpuPct: 0, powerDrawW: 8.7, powerLimitW: null, migMode: null, processes: 1, firstProcess: { pid: 28543, name: "/usr/libexec/Xorg", usedMemoryMiB: 4 } }] },
  "netdata__rtx-4090-driver-535.xml": { driver: "535.86.05", cuda: "12.2", gpus: [
    { name: "NVIDIA GeForce RTX 4090", uuid: "GPU-71d1acc2-662d-2166-bf9f-65272d2fc437", memoryTotalMiB: 24564, memoryUsedMiB: 2, utilizationGpuPct: 0, powerDrawW: 26.84, powerLimitW: 450, migMode: null, processes: 0 }] },
  "netdata__tesla-p100.xml": { driver: "510.47.03", cuda: "11.6", gpus: [
    { name: "Tesla P100-PCIE-16GB", uuid: "GPU-d3da8716-eaab-75db-efc1-60e88e1cd55e", memoryTotalMiB: 16384, memoryUsedMiB: 0, utilizationGpuPct: 0, powerDrawW: 26.16, powerLimitW: 250, migMode: null, processes: 0 }] },
  "telegraf__3090-v13.xml": { driver: "590.44.01", cuda: "13.1", gpus: [
    { name: "NVIDIA GeForce RTX 3090", uuid: "GPU-12345678-aaaa-bbbb-cccc-0123456789ab", memoryTotalMiB: 24576, memoryUsedMiB: 7, utilizationGpuPct: 0, powerDrawW: 35.06, powerLimitW: 350, migMode: null, processes: 0 }] },
  "telegraf__a100-sxm4-v12.xml": { driver: "535.54.03", cuda: "12.2", gpus: [
    { name: "NVIDIA A100-SXM4-80GB", uuid: "GPU-513536b6-7d19-9063-b049-1e69664bb298", memoryTotalMiB: 81920, memoryUsedMiB: 50, utilizationGpuPct: null, powerDrawW: 67.03, powerLimitW: 500, migMode: "Enabled", processes: 0 }] },
  "telegraf__a10g.xml": { driver: "515.105.01", cuda: "11.7", gpus: [
    { name: "NVIDIA A10G", uuid: "GPU-9a9a6c50-2a47-2f51-a902-b82c3b127e94", memoryTotalMiB: 23028, memoryUsedMiB: 22, utilizationGpuPct: 0, powerDrawW: 25.58, powerLimitW: 300, migMode: null, processes: 1, firstProcess: { pid: 725, name: "/usr/lib/xorg/Xorg", usedMemoryMiB: 22 } }] },
  "telegraf__dual_2070-v13.xml": { driver: "590.44.01", cuda: "13.1", gpus: [
    { name: "NVIDIA GeForce RTX 2070", uuid: "GPU-12345678-aaaa-bbbb-cccc-0123456789ab", memoryTotalMiB: 8192, memoryUsedMiB: 1, utilizationGpuPct: 0, powerDrawW: 9.23, powerLimitW: 175, migMode: null, processes: 0 },
    { name: "NVIDIA GeForce RTX 2070", uuid: "GPU-12345678-aaaa-bbbb-cccc-0123456789cd", memoryTotalMiB: 8192, memoryUsedMiB: 1, utilizationGpuPct: 0, powerDrawW: 11.82, powerLimitW: 175, migMode: null, processes: 0 }] },
  "telegraf__dual_2080-v13.xml": { driver: "590.44.01", cuda: "13.1", gpus: [
    { name: "NVIDIA GeForce RTX 2080", uuid: "GPU-12345678-aaaa-bbbb-cccc-0123456789ab", memoryTotalMiB: 8192, memoryUsedMiB: 1, utilizationGpuPct: 0, powerDrawW: 1, powerLimitW: 215, migMode: null, processes: 0 },
    { name: "NVIDIA GeForce RTX 2080", uuid: "GPU-12345678-aaaa-bbbb-cccc-0123456789ab", memoryTotalMiB: 8192, memoryUsedMiB: 1, utilizationGpuPct: 0, powerDrawW: 1.62, powerLimitW: 215, migMode: null, processes: 0 }] },
  "telegraf__dual_a5000-v13.xml": { driver: "590.44.01", cuda: "13.1", gpus: [
    { name: "NVIDIA RTX A5000", uuid: "GPU-12345678-aaaa-bbbb-cccc-0123456789ab", memoryTotalMiB: 24564, memoryUsedMiB: 22437, utilizationGpuPct: 0, powerDrawW: 6.41, powerLimitW: 230, migMode: null, processes: 1, firstProcess: { pid: 100477, name: "/root/src/llama.cpp/build/bin/llama-server", usedMemoryMiB: 22430 } },
    { name: "NVIDIA RTX A5000", uuid: "GPU-12345678-aaaa-bbbb-cccc-0123456789cd", memoryTotalMiB: 24564, memoryUsedMiB: 17253, utilizationGpuPct: 0, powerDrawW: 13.6, powerLimitW: 230, migMode: null, processes: 1, firstProcess: { pid: 100477, name: "/root/src/llama.cpp/build/bin/llama-server", usedMemoryMiB: 17246 } }] },
  "telegraf__gt-1030.xml": { driver: "470.74", cuda: "11.4", gpus: [
    { name: "NVIDIA GeForce GT 1030", uuid: "GPU-857c6374-f681-cf3a-f99f-9063a87b8ac0", memoryTotalMiB: 1998, memoryUsedMiB: 875, utilizationGpuPct: 0, powerDrawW: null, powerLimitW: 30, migMode: null, processes: 10, firstProcess: { pid: 607, name: "/usr/lib/Xorg", usedMemoryMiB: 547 } }] },
  "telegraf__gtx-1070-ti.xml": { driver: null, cuda: null, gpus: [
    { name: "GeForce GTX 1070 Ti", uuid: "GPU-f9ba66fc-a7f5-94c5-da19-019ef2f9c665", memoryTotalMiB: 4096, memoryUsedMiB: 42, utilizationGpuPct: 0, powerDrawW: null, powerLimitW: null, migMode: null, processes: 0 }] },
  "telegraf__gtx-1660-ti.xml": { driver: "418.43", cuda: "10.1", gpus: [
    { name: "Graphics Device", uuid: "GPU-304a277d-3545-63b8-3a36-dfde3c992989", memoryTotalMiB: 5912, memoryUsedMiB: 0, utilizationGpuPct: 0, powerDrawW: 8.93, powerLimitW: 130, migMode: null, processes: 0 }] },
  "telegraf__pro-6000-maxq-blackwell-v13.xml": { driver: "590.44.01", cuda: "13.1", gpus: [
    { name: "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", uuid: "GPU-12345678-aaaa-bbbb-cccc-0123456789ab", memoryTotalMiB: 97887, memoryUsedMiB: 65720, utilizationGpuPct: 0, powerDrawW: 3.97, powerLimitW: 300, migMode: null, processes: 1, firstProcess: { pid: 116860, name: "/root/src/llama.cpp/build/bin/llama-server", usedMemoryMiB: 65710 } }] },
  "telegraf__quadro-p2000-v12.xml": { driver: "525.125.06", cuda: "12.0", gpus: [
    { name: "Quadro P2000", uuid: "GPU-396caaed-39ca-3199-2e68-717cdb786ec6", memoryTotalMiB: 5120, memoryUsedMiB: 1, utilizationGpuPct: 0, powerDrawW: 4.61, powerLimitW: 75, migMode: null, processes: 0 }] },
  "telegraf__quadro-p400.xml": { driver: "418.43", cuda: "10.1", gpus: [
    { name: "Quadro P400", uuid: "GPU-8f750be4-dfbc-23b9-b33f-da729a536494", memoryTotalMiB: 1998, memoryUsedMiB: 0, utilizationGpuPct: 0, powerDrawW: null, powerLimitW: null, migMode: null, processes: 0 }] },
  "telegraf__rtx-3060-v12.xml": { driver: "570.124.04", cuda: "12.8", gpus: [
    { name: "NVIDIA GeForce RTX 3060", uuid: "GPU-d6889ff6-2523-9142-ca3c-1ca3f396a625", memoryTotalMiB: 12288, memoryUsedMiB: 116, utilizationGpuPct: 0, powerDrawW: 11.6, powerLimitW: 170, migMode: null, processes: 0 }] },
  "telegraf__rtx-3080-v12.xml": { driver: "536.40", cuda: "12.2", gpus: [
    { name: "NVIDIA GeForce RTX 3080", uuid: "GPU-19d6d965-2acc-f646-00f8-4c76979aabb4", memoryTotalMiB: 10240, memoryUsedMiB: 1128, utilizationGpuPct: 0, powerDrawW: 22.78, powerLimitW: 336, migMode: null, processes: 0 }] },
  "telegraf__rtx-3080-v13.xml": { driver: "595.58.03", cuda: "13.2", gpus: [
    { name: "NVIDIA GeForce RTX 3080", uuid: "GPU-19d6d965-2acc-f646-00f8-4c76979aabb4", memoryTotalMiB: 10240, memoryUsedMiB: 9184, utilizationGpuPct: 65, powerDrawW: 139.62, powerLimitW: 320, migMode: null, processes: 0 }] },
  "telegraf__rtx-3090-v12.xml": { driver: "525.147.05", cuda: "12.0", gpus: [
    { name: "NVIDIA GeForce RTX 3090", uuid: "GPU-12345678-aaaa-bbbb-cccc-0123456789ab", memoryTotalMiB: 24576, memoryUsedMiB: 1, utilizationGpuPct: 0, powerDrawW: 27.23, powerLimitW: 200, migMode: null, processes: 0 }] },
  "telegraf__rtx-4000-sff-ada-v13.xml": { driver: "595.84", cuda: "13.2", gpus: [
    { name: "NVIDIA RTX 4000 SFF Ada Generation", uuid: "GPU-37037c3f-65c8-ec4d-24a9-420204ad8026", memoryTotalMiB: 20475, memoryUsedMiB: 3534, utilizationGpuPct: 0, powerDrawW: 8.81, powerLimitW: 70, migMode: null, processes: 4, firstProcess: { pid: 1842, name: "cosmic-comp", usedMemoryMiB: 410 } }] },
  "telegraf__tesla-t4.xml": { driver: "515.105.01", cuda: "11.7", gpus: [
    { name: "Tesla T4", uuid: "GPU-d37e67a5-91dd-3774-a5cb-99096249601a", memoryTotalMiB: 15360, memoryUsedMiB: 1032, utilizationGpuPct: 0, powerDrawW: 26.78, powerLimitW: 70, migMode: null, processes: 2, firstProcess: { pid: 675, name: "/usr/lib/xorg/Xorg", usedMemoryMiB: 22 } }] },
  "telegraf__tesla_p4.xml": { driver: "513.46", cuda: "11.6", gpus: [
    { name: "GRID P4-1Q", uuid: "GPU-1b1ea7c7-1c4b-ed49-1c72-26c65f2dd207", memoryTotalMiB: 1024, memoryUsedMiB: 807, utilizationGpuPct: 0, powerDrawW: null, powerLimitW: null, migMode: null, processes: 13, firstProcess: { pid: 1188, name: "", usedMemoryMiB: null } }] },
  "telegraf__tesla_t4.xml": { driver: "512.78", cuda: "11.6", gpus: [
    { name: "Tesla T4", uuid: "GPU-f6e826dc-c9d7-ac58-6d5d-9048c9e1c124", memoryTotalMiB: 15360, memoryUsedMiB: 276, utilizationGpuPct: 0, powerDrawW: 13.08, powerLimitW: 70, migMode: null, processes: 15, firstProcess: { pid: 2320, name: "", usedMemoryMiB: null } }] },
};

describeShared("real nvidia-smi -q -x (../shared xml/)", () => {
  it("has an expectation for every dump", () => {
    expect(readdirSync(path.join(sharedNvidiaSmiDir, "xml")).sort()).toEqual(Object.keys(XML).sort());
  });

  it.each(Object.entries(XML))("%s", (file, expected) => {
    const log = parseNvidiaSmiXml(readSharedFixture(`xml/${file}`));
    expect([log.driverVersion, log.cudaVersion]).toEqual([expected.driver, expected.cuda]);
    expect(log.gpus).toHaveLength(expected.gpus.length);
    log.gpus.forEach((gpu, i) => {
      const { processes, firstProcess, ...sample } = expected.gpus[i];
      expect(gpu.gpu).toMatchObject({ ...sample, index: i });
      expect(gpu.processes).toHaveLength(processes);
      if (firstProcess) expect(gpu.processes[0]).toMatchObject(firstProcess);
    });
  });

  it("MIG dumps list their MIG devices; the trimmed A100 dump says 4 GPUs but holds 1", () => {
    const a100 = parseNvidiaSmiXml(readSharedFixture("xml/telegraf__a100-sxm4-v12.xml"));
    expect(a100.attachedGpus).toBe(4);
    expect(a100.gpus[0].migDevices.map((m) => [m.gpuInstanceId, m.memoryTotalMiB])).toEqual([
      [3, 19968],
      [4, 19968],
      [5, 19968],
      [6, 19968],
    ]);
    expect(parseNvidiaSmiXml(readSharedFixture("xml/netdata__a100-sxm4-mig.xml")).gpus[0].migDevices).toHaveLength(2);
  });

  it("keeps nvidia-smi's index order where minor numbers differ, and N/A minor numbers on Windows", () => {
    const a5000 = parseNvidiaSmiXml(readSharedFixture("xml/telegraf__dual_a5000-v13.xml"));
    expect(a5000.gpus.map((g) => [g.gpu.index, g.minorNumber, g.gpu.pciBusId])).toEqual([
      [0, 1, "00000000:81:00.0"],
      [1, 0, "00000000:C1:00.0"],
    ]);
    expect(parseNvidiaSmiXml(readSharedFixture("xml/telegraf__tesla_t4.xml")).gpus[0].minorNumber).toBeNull();
  });

  it("reads the process types of a mixed Linux desktop", () => {
    const [gpu] = parseNvidiaSmiXml(readSharedFixture("xml/telegraf__rtx-4000-sff-ada-v13.xml")).gpus;
    expect(gpu.processes.map((p) => [p.pid, p.type, p.usedMemoryMiB])).toEqual([
      [1842, "G", 410],
      [3190, "G", 451],
      [4937, "C", 160],
      [34626, "C+G", 183],
    ]);
  });
});
