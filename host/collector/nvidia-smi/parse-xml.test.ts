import { describe, expect, it } from "vitest";
import { processesFromXml } from "@/host/collector/nvidia-smi/build-snapshot";
import { parseNvidiaSmiXml } from "@/host/collector/nvidia-smi/parse-xml";
import { readOwnFixture } from "@/host/collector/nvidia-smi/test-fixtures";

describe("nvidia-smi -q -x", () => {
  it("reads the real H200 dump (raw tab layout, v13, average/instant power)", () => {
    const log = parseNvidiaSmiXml(readOwnFixture("h200-driver-580", "query-xml.xml"));
    expect(log).toMatchObject({ driverVersion: "580.159.04", cudaVersion: "13.0", attachedGpus: 1 });
    expect(log.gpus).toHaveLength(1);
    expect(log.gpus[0]).toEqual({
      gpu: {
        index: 0,
        uuid: "GPU-ef2803ab-ed44-fce3-aa80-5f09cb377b2d",
        name: "NVIDIA H200",
        pciBusId: "00000000:00:06.0",
        memoryTotalMiB: 143771,
        memoryUsedMiB: 0,
        utilizationGpuPct: 0,
        utilizationMemoryPct: 0,
        temperatureC: 33,
        powerDrawW: 77.55,
        powerLimitW: 700,
        fanSpeedPct: null,
        smClockMHz: 345,
        pstate: "P0",
        migMode: "Disabled",
        eccErrorsUncorrected: 0,
      },
      minorNumber: 0,
      migDevices: [],
      processes: [],
    });
  });

  it("reads legacy power readings and single/double-bit ECC, in index order not minor order", () => {
    const log = parseNvidiaSmiXml(readOwnFixture("two-gpu-host", "query-xml.xml"));
    expect(log.cudaVersion).toBe("11.4");
    expect(log.gpus.map((g) => [g.gpu.index, g.minorNumber, g.gpu.pciBusId])).toEqual([
      [0, 1, "00000000:17:00.0"],
      [1, 0, "00000000:65:00.0"],
    ]);
    expect(log.gpus.map((g) => [g.gpu.powerDrawW, g.gpu.powerLimitW, g.gpu.eccErrorsUncorrected])).toEqual([
      [231.47, 300, 0],
      [71.05, 300, 2],
    ]);
    expect(log.gpus[0].processes.map((p) => [p.pid, p.type, p.name, p.usedMemoryMiB])).toEqual([
      [2291, "G", "/usr/lib/xorg/Xorg", 4],
      [48211, "C", "/usr/bin/python3", 30720],
      [48390, "C", "/opt/jobs/sweep, lr=3e-4/bin/trainer", 9216],
    ]);
  });

  it("leaves graphics-only processes out of the process list built from XML", () => {
    const log = parseNvidiaSmiXml(readOwnFixture("two-gpu-host", "query-xml.xml"));
    expect(processesFromXml(log).map((p) => [p.gpuUuid.slice(0, 12), p.pid])).toEqual([
      ["GPU-fcd5b05f", 48211],
      ["GPU-fcd5b05f", 48390],
      ["GPU-9fafbc76", 50102],
    ]);
  });

  it("reads a reformatted MIG dump with MIG devices and per-instance processes", () => {
    const log = parseNvidiaSmiXml(readOwnFixture("mig-host", "query-xml.xml"));
    const [gpu] = log.gpus;
    expect(gpu.gpu).toMatchObject({ migMode: "Enabled", utilizationGpuPct: null, utilizationMemoryPct: null, powerDrawW: 212.36 });
    expect(gpu.migDevices).toEqual([
      { index: 0, gpuInstanceId: 1, computeInstanceId: 0, memoryTotalMiB: 40192, memoryUsedMiB: 10021 },
      { index: 1, gpuInstanceId: 2, computeInstanceId: 0, memoryTotalMiB: 40192, memoryUsedMiB: 4133 },
    ]);
    expect(gpu.processes.map((p) => [p.pid, p.gpuInstanceId, p.usedMemoryMiB])).toEqual([
      [7311, 1, 9984],
      [7458, 2, 4096],
    ]);
  });

  it("reads a Windows dump (CRLF, WDDM: empty names, memory N/A, no minor number)", () => {
    const text = readOwnFixture("windows-host", "query-xml.xml");
    expect(text).toContain("\r\n");
    const [gpu] = parseNvidiaSmiXml(text).gpus;
    expect(gpu.minorNumber).toBeNull();
    expect(gpu.gpu).toMatchObject({ powerDrawW: 41.87, powerLimitW: 200, eccErrorsUncorrected: null, migMode: null, fanSpeedPct: 30 });
    expect(gpu.processes).toHaveLength(5);
    expect(gpu.processes[0]).toEqual({ pid: 1412, name: "", usedMemoryMiB: null, type: "C+G", gpuInstanceId: null, computeInstanceId: null });
    expect(gpu.processes[2].name).toBe("C:\\Users\\mara\\Apps\\Studio, Inc\\render-node.exe");
  });

  it("accepts self-closing empty elements", () => {
    const xml = `<?xml version="1.0"?><nvidia_smi_log><driver_version>1.0</driver_version><gpu id="00000000:01:00.0"><uuid>GPU-x</uuid><processes /><mig_devices /></gpu></nvidia_smi_log>`;
    const log = parseNvidiaSmiXml(xml);
    expect(log.cudaVersion).toBeNull();
    expect(log.gpus[0]).toMatchObject({ processes: [], migDevices: [] });
    expect(log.gpus[0].gpu).toMatchObject({ pciBusId: "00000000:01:00.0", name: "", memoryTotalMiB: null });
  });

  it("rejects what is not an nvidia-smi dump", () => {
    expect(() => parseNvidiaSmiXml("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.")).toThrow(
      /nvidia_smi_log/,
    );
    expect(() => parseNvidiaSmiXml("<other><gpu/></other>")).toThrow(/nvidia_smi_log/);
  });
});
