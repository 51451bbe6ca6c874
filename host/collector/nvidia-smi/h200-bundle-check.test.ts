import { describe, expect, it } from "vitest";
import { snapshotSchema } from "@/lib/domain/snapshot";
import { isHeaderLine, parseComputeAppsCsv, parseQueryGpuCsv } from "@/host/collector/nvidia-smi/parse-csv";
import { parseNvidiaSmiXml } from "@/host/collector/nvidia-smi/parse-xml";
import { APP_QUERY_FIELDS, GPU_QUERY_FIELDS } from "@/host/collector/nvidia-smi/query-fields";
import { readOwnFixture } from "@/host/collector/nvidia-smi/test-fixtures";

/**
 * host/collector/fixtures/h200-bundle-check: the exact commands the
 * collector runs, captured on a real H200 while a real CUDA process (whose
 * environment names a booking with a proof) ran, next to what the host
 * bundle's agent printed on that machine at the same time. The parsers must
 * read the captures into the values the real agent reported.
 */
const FOLDER = "h200-bundle-check";
const read = (name: string) => readOwnFixture(FOLDER, name);
const agentReading = snapshotSchema.parse(JSON.parse(read("bundle-agent-once__node20.json.txt")));
const UUID = "GPU-192fc680-ef70-8535-1e8e-5b6e08847912";

describe("captures of the collector's commands on a real H200 (driver 580.159.04)", () => {
  it("the real agent's reading fits the snapshot contract, proof value included", () => {
    expect(agentReading.gpus).toHaveLength(1);
    expect(agentReading.processes).toEqual([
      expect.objectContaining({
        pid: 1446,
        gpuUuid: UUID,
        usedMemoryMiB: 4102,
        reservationId: "res_devicecheck.Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4",
      }),
    ]);
  });

  it("the one-shot GPU query parses to the values the agent reported (power draw moves between samples)", () => {
    const [row] = parseQueryGpuCsv(read("query-gpu__load.csv"), GPU_QUERY_FIELDS);
    const { powerDrawW, ...rest } = row.gpu;
    const { powerDrawW: agentPower, ...agentRest } = agentReading.gpus[0];
    expect(rest).toEqual(agentRest);
    expect(powerDrawW).toBeCloseTo(agentPower ?? 0, 0);
    expect(row.gpu.fanSpeedPct).toBeNull(); // "[N/A]" on a passively cooled board
    expect(row.driverVersion).toBe("580.159.04");
  });

  it("each tick of the long-lived GPU query is one row of the same GPU", () => {
    const rows = read("query-gpu__lms-4s.csv")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .flatMap((line) => parseQueryGpuCsv(line, GPU_QUERY_FIELDS));
    expect(rows).toHaveLength(4);
    expect(new Set(rows.map((r) => r.gpu.uuid))).toEqual(new Set([UUID]));
  });

  it("the process query, one-shot and looping with its header, finds the CUDA process", () => {
    const once = parseComputeAppsCsv(read("query-compute-apps__load.csv"), APP_QUERY_FIELDS);
    expect(once).toEqual([
      { timestamp: "2026/11/30 22:20:58.424", gpuUuid: UUID, pid: 1446, name: "/tmp/gpudesk-hog", usedMemoryMiB: 4102 },
    ]);
    const [header, ...ticks] = read("query-compute-apps__lms-4s.csv")
      .split("\n")
      .filter((line) => line.trim() !== "");
    expect(isHeaderLine(header, "compute-apps", APP_QUERY_FIELDS)).toBe(true);
    const looped = ticks.flatMap((line) => parseComputeAppsCsv(line, APP_QUERY_FIELDS));
    expect(looped.map((r) => r.pid)).toEqual([1446, 1446, 1446, 1446]);
    expect(new Set(looped.map((r) => r.timestamp)).size).toBe(4);
  });

  it("a process caught while exiting ('[No data]' for its name) still counts, with its memory", () => {
    const rows = parseComputeAppsCsv(read("query-compute-apps__after.csv"), APP_QUERY_FIELDS);
    expect(rows).toEqual([expect.objectContaining({ pid: 1446, name: "", usedMemoryMiB: 4102 })]);
  });

  it("-q -x under load lists the same GPU and process", () => {
    const xml = parseNvidiaSmiXml(read("query-xml__load.xml"));
    expect(xml.driverVersion).toBe("580.159.04");
    expect(xml.cudaVersion).toBe("13.0");
    expect(xml.gpus.map((g) => g.gpu.uuid)).toEqual([UUID]);
    expect(xml.gpus[0].gpu.memoryTotalMiB).toBe(143771);
    expect(xml.gpus[0].processes).toEqual([
      expect.objectContaining({ pid: 1446, name: "/tmp/gpudesk-hog", usedMemoryMiB: 4102, type: "C" }),
    ]);
  });
});
