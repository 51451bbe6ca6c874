import { describe, expect, it } from "vitest";
import { isHeaderLine, parseComputeAppsCsv, parseQueryGpuCsv } from "@/host/collector/nvidia-smi/parse-csv";
import { APP_QUERY_FIELDS } from "@/host/collector/nvidia-smi/query-fields";
import { describeCommand, exitError, findInvalidField, NvidiaSmiError } from "@/host/collector/nvidia-smi/run-nvidia-smi";
import { readOwnFixture } from "@/host/collector/nvidia-smi/test-fixtures";

const DEVICE = "h200-device-check";

describe("nvidia-smi failures", () => {
  it("recognises the real refusal of an unknown field (driver 580)", () => {
    const output = readOwnFixture(DEVICE, "invalid-field.txt");
    expect(findInvalidField(output)).toBe("mig.mode.bogus");
    const error = exitError(["--query-gpu=index,mig.mode.bogus", "--format=csv,noheader"], 2, null, output);
    expect(error).toBeInstanceOf(NvidiaSmiError);
    expect(error).toMatchObject({
      code: "invalid-field",
      field: "mig.mode.bogus",
      message: 'nvidia-smi --query-gpu: Field "mig.mode.bogus" is not a valid field to query.',
    });
  });

  it("recognises the Windows spelling with typographic quotes", () => {
    expect(findInvalidField("Field “encoder.stats.sessionCount” is not a valid field to query.\r\n")).toBe("encoder.stats.sessionCount");
    expect(findInvalidField("0, GPU-a, NVIDIA H200")).toBeNull();
  });

  it("describes other exits by code or signal and by their first line", () => {
    expect(exitError(["-q", "-x"], 9, null, "\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\nMore.\n")).toMatchObject({
      code: "failed",
      message: "nvidia-smi -q exited with code 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
    });
    expect(exitError(["--query-compute-apps=pid"], null, "SIGKILL", "").message).toBe("nvidia-smi --query-compute-apps was killed by SIGKILL");
    expect(describeCommand([])).toBe("nvidia-smi");
  });
});

describe("real -lms output (driver 580)", () => {
  it("prints the header once and then one line per GPU and tick", () => {
    const rows = parseQueryGpuCsv(readOwnFixture(DEVICE, "query-gpu__lms-with-header.csv"));
    expect(rows).toHaveLength(4);
    expect(rows.every((r) => r.gpu.uuid === "GPU-0bae265c-555b-5a0c-03c7-8551e62ae474" && r.gpu.utilizationGpuPct === 0)).toBe(true);
  });

  it("prints nothing at all for processes on an idle GPU", () => {
    expect(readOwnFixture(DEVICE, "query-compute-apps__lms-idle.csv").trim()).toBe("");
  });

  it("prints the process header once even on an idle GPU, which the source takes as the first tick", () => {
    const lines = readOwnFixture(DEVICE, "query-compute-apps__lms-header-idle.csv").trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(isHeaderLine(lines[0], "compute-apps", APP_QUERY_FIELDS)).toBe(true);
    expect(parseComputeAppsCsv(lines[0], APP_QUERY_FIELDS)).toEqual([]);
    expect(isHeaderLine("2026/11/30 00:44:38.688, GPU-a, 691, /tmp/x, 3590", "compute-apps", APP_QUERY_FIELDS)).toBe(false);
  });
});
