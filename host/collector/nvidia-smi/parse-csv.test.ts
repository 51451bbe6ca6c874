import { describe, expect, it } from "vitest";
import {
  canonicalField,
  parseComputeAppsCsv,
  parseCsvCell,
  parseCsvTable,
  parseMeasure,
  parseQueryGpuCsv,
} from "@/host/collector/nvidia-smi/parse-csv";
import { readOwnFixture } from "@/host/collector/nvidia-smi/test-fixtures";

const H200 = "h200-driver-580";
const H200_UUID = "GPU-ef2803ab-ed44-fce3-aa80-5f09cb377b2d";
// The field list scripts/capture-nvidia-fixtures.sh asked for.
const CAPTURED_GPU_FIELDS =
  "index,uuid,name,pci.bus_id,driver_version,memory.total,memory.used,utilization.gpu,utilization.memory,temperature.gpu,power.draw,power.limit,fan.speed,clocks.sm,pstate,mig.mode.current,ecc.errors.uncorrected.volatile.total,retired_pages.pending,remapped_rows.failure".split(
    ",",
  );
const CAPTURED_APP_FIELDS = ["gpu_uuid", "pid", "process_name", "used_memory"];

describe("cell values", () => {
  it.each([
    "[N/A]",
    "N/A",
    "[Not Supported]",
    "[Unknown Error]",
    "[Requested functionality has been deprecated]",
    "[Function Not Found]",
    "[Insufficient Permissions]",
    "",
    "   ",
  ])("treats %j as no value", (raw) => {
    expect(parseCsvCell(raw)).toBeNull();
  });

  it("keeps text and trims it", () => {
    expect(parseCsvCell(" NVIDIA H200 ")).toBe("NVIDIA H200");
  });

  it.each([
    ["143771 MiB", 143771],
    ["77.57 W", 77.57],
    ["0 %", 0],
    ["1980 MHz", 1980],
    ["250 us", 250],
    ["-2", -2],
    ["700.00", 700],
  ])("reads %j as %d", (raw, value) => {
    expect(parseMeasure(parseCsvCell(raw))).toBe(value);
  });

  it.each(["P0", "Enabled", "0x0000", "580.159.04", "[N/A]"])("reads no number from %j", (raw) => {
    expect(parseMeasure(parseCsvCell(raw))).toBeNull();
  });
});

describe("header names", () => {
  it("strips units and resolves aliases per query kind", () => {
    expect(canonicalField("gpu", "memory.used [MiB]")).toBe("memory.used");
    expect(canonicalField("gpu", "clocks.sm")).toBe("clocks.current.sm");
    expect(canonicalField("gpu", "gpu_uuid")).toBe("uuid");
    expect(canonicalField("gpu", "name")).toBe("name");
    expect(canonicalField("compute-apps", "used_memory")).toBe("used_gpu_memory");
    expect(canonicalField("compute-apps", "used_gpu_memory [MiB]")).toBe("used_gpu_memory");
    expect(canonicalField("compute-apps", "uuid")).toBe("gpu_uuid");
    expect(canonicalField("compute-apps", "name")).toBe("process_name");
  });
});

describe("--query-gpu CSV", () => {
  it("reads the real H200 capture with header and units", () => {
    const [row] = parseQueryGpuCsv(readOwnFixture(H200, "query-gpu.csv"));
    expect(row.driverVersion).toBe("580.159.04");
    expect(row.gpu).toEqual({
      index: 0,
      uuid: H200_UUID,
      name: "NVIDIA H200",
      pciBusId: "00000000:00:06.0",
      memoryTotalMiB: 143771,
      memoryUsedMiB: 0,
      utilizationGpuPct: 0,
      utilizationMemoryPct: 0,
      temperatureC: 33,
      powerDrawW: 77.57,
      powerLimitW: 700,
      fanSpeedPct: null,
      smClockMHz: 345,
      pstate: "P0",
      migMode: "Disabled",
      eccErrorsUncorrected: 0,
    });
  });

  it("reads the real H200 capture under load", () => {
    const rows = parseQueryGpuCsv(readOwnFixture(H200, "query-gpu__load.csv"));
    expect(rows).toHaveLength(1);
    expect(rows[0].gpu).toMatchObject({ memoryUsedMiB: 3599, utilizationGpuPct: 1, powerDrawW: 120.04, smClockMHz: 1980 });
  });

  it("reads noheader,nounits output with the caller's field list", () => {
    const [row] = parseQueryGpuCsv(readOwnFixture(H200, "query-gpu-nounits.csv"), CAPTURED_GPU_FIELDS);
    expect(row.gpu).toMatchObject({ uuid: H200_UUID, memoryTotalMiB: 143771, powerDrawW: 77.55, smClockMHz: 345, fanSpeedPct: null });
  });

  it("reads every line of the real 20 s -lms run", () => {
    const rows = parseQueryGpuCsv(readOwnFixture(H200, "lms-output.csv"), CAPTURED_GPU_FIELDS);
    expect(rows).toHaveLength(20);
    expect(rows.map((r) => r.gpu.powerDrawW).slice(0, 3)).toEqual([123.86, 106.07, 77.87]);
    expect(rows.map((r) => r.gpu.smClockMHz).slice(0, 3)).toEqual([1980, 405, 345]);
    expect(new Set(rows.map((r) => r.gpu.uuid))).toEqual(new Set([H200_UUID]));
  });

  it("reads two GPUs in index order", () => {
    const rows = parseQueryGpuCsv(readOwnFixture("two-gpu-host", "query-gpu__load.csv"));
    expect(rows.map((r) => [r.gpu.index, r.gpu.memoryUsedMiB, r.gpu.eccErrorsUncorrected])).toEqual([
      [0, 40512, 0],
      [1, 3660, 2],
    ]);
  });

  it("reports N/A utilization of a GPU in MIG mode as null", () => {
    const [row] = parseQueryGpuCsv(readOwnFixture("mig-host", "query-gpu__load.csv"));
    expect(row.gpu).toMatchObject({ migMode: "Enabled", utilizationGpuPct: null, utilizationMemoryPct: null, memoryUsedMiB: 14213 });
  });

  it("reads Windows output with CRLF line ends and bracketed messages", () => {
    const text = readOwnFixture("windows-host", "query-gpu__load.csv");
    expect(text).toContain("\r\n");
    const [row] = parseQueryGpuCsv(text);
    expect(row.gpu).toMatchObject({
      name: "NVIDIA GeForce RTX 4070",
      pstate: "P2",
      fanSpeedPct: 30,
      migMode: null,
      eccErrorsUncorrected: null,
    });
  });

  it("maps aliases of requested fields in noheader output", () => {
    const [row] = parseQueryGpuCsv("GPU-a, 1410, Tesla X\n", ["gpu_uuid", "clocks.sm", "gpu_name"]);
    expect(row.gpu).toMatchObject({ uuid: "GPU-a", smClockMHz: 1410, name: "Tesla X", index: 0 });
  });

  it("maps every 'no value' spelling of nvidia-smi to null, never 0", () => {
    const text =
      "uuid, power.draw [W], power.limit [W], fan.speed [%], temperature.gpu, clocks.current.sm [MHz]\n" +
      "GPU-a, [Unknown Error], [Requested functionality has been deprecated], [Not Supported], [Function Not Found], N/A\n";
    const [row] = parseQueryGpuCsv(text);
    expect(row.gpu).toMatchObject({ powerDrawW: null, powerLimitW: null, fanSpeedPct: null, temperatureC: null, smClockMHz: null });
  });

  it("joins surplus cells back into a GPU name with a comma, drops short rows and rows without UUID", () => {
    const text = "index, uuid, name, memory.used [MiB]\n0, GPU-a, Odd, Name, 5 MiB\n1, GPU-b\n2, [N/A], X, 1 MiB\n";
    const rows = parseQueryGpuCsv(text);
    expect(rows.map((r) => [r.gpu.uuid, r.gpu.name, r.gpu.memoryUsedMiB])).toEqual([["GPU-a", "Odd, Name", 5]]);
  });
});

describe("--query-compute-apps CSV", () => {
  const hog = { gpuUuid: H200_UUID, pid: 691, name: "/tmp/gpudesk-hog", usedMemoryMiB: 3590 };

  it("reads the real H200 process with header and units", () => {
    expect(parseComputeAppsCsv(readOwnFixture(H200, "query-compute-apps__load.csv"))).toEqual([{ ...hog, timestamp: null }]);
  });

  it("reads the real noheader,nounits and -lms captures", () => {
    const once = parseComputeAppsCsv(readOwnFixture(H200, "query-compute-apps__load-nounits.csv"), CAPTURED_APP_FIELDS);
    expect(once).toEqual([{ ...hog, timestamp: null }]);
    const looped = parseComputeAppsCsv(readOwnFixture(H200, "query-compute-apps__lms.csv"), CAPTURED_APP_FIELDS);
    expect(looped).toHaveLength(3);
    expect(looped.every((p) => p.pid === 691 && p.usedMemoryMiB === 3590)).toBe(true);
  });

  it("reads header-only output as no processes", () => {
    expect(parseComputeAppsCsv(readOwnFixture(H200, "query-compute-apps__idle.csv"))).toEqual([]);
    expect(parseComputeAppsCsv(readOwnFixture("two-gpu-host", "query-compute-apps__idle.csv"))).toEqual([]);
  });

  it.each(["No running processes found\n", "", "\n\n"])("reads %j as no processes", (text) => {
    expect(parseComputeAppsCsv(text, CAPTURED_APP_FIELDS)).toEqual([]);
  });

  it("keeps a process name containing ', ' whole", () => {
    const rows = parseComputeAppsCsv(readOwnFixture("two-gpu-host", "query-compute-apps__load.csv"));
    expect(rows.map((r) => [r.pid, r.name, r.usedMemoryMiB])).toEqual([
      [48211, "/usr/bin/python3", 30720],
      [48390, "/opt/jobs/sweep, lr=3e-4/bin/trainer", 9216],
      [50102, "/usr/bin/python3", 3072],
    ]);
    expect(new Set(rows.map((r) => r.timestamp))).toEqual(new Set(["2026/11/02 14:05:17.204"]));
  });

  it("reads Windows processes (CRLF, paths with ', ', memory N/A)", () => {
    const rows = parseComputeAppsCsv(readOwnFixture("windows-host", "query-compute-apps__load.csv"));
    expect(rows.map((r) => r.name)).toEqual([
      "C:\\Windows\\System32\\dwm.exe",
      "C:\\Program Files\\Blender Foundation\\Blender 4.2\\blender.exe",
      "C:\\Users\\mara\\Apps\\Studio, Inc\\render-node.exe",
      "C:\\Users\\mara\\miniconda3\\envs\\cv\\python.exe",
    ]);
    expect(rows.every((r) => r.usedMemoryMiB === null)).toBe(true);
  });

  it("lists MIG processes under the parent GPU's UUID", () => {
    const rows = parseComputeAppsCsv(readOwnFixture("mig-host", "query-compute-apps__load.csv"));
    expect(rows.map((r) => [r.gpuUuid, r.pid, r.usedMemoryMiB])).toEqual([
      ["GPU-f2de10c2-2ae0-4742-bafc-1a7ec6699b08", 7311, 9984],
      ["GPU-f2de10c2-2ae0-4742-bafc-1a7ec6699b08", 7458, 4096],
    ]);
  });

  it("names columns by their canonical header, whatever spelling was requested", () => {
    const table = parseCsvTable("1, a, 2\n", "compute-apps", ["pid", "name", "used_memory"]);
    expect(table.columns).toEqual(["pid", "process_name", "used_gpu_memory"]);
    expect(table.rows).toEqual([{ pid: "1", process_name: "a", used_gpu_memory: "2" }]);
  });
});
