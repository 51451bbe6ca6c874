import { describe, expect, it } from "vitest";
import { launchSettings } from "@/lib/domain/launch-settings";
import { bookingRequest, checkSliceRun, runEnvironments } from "@/host/cli-client/client-commands";
import { UsageError } from "@/host/cli-client/cli-errors";

const NOW = new Date("2026-12-01T10:00:00Z");
const slice = (deviceIndex: number, profile: string) => ({ index: 0, uuid: `MIG-${deviceIndex}`, mig: { deviceIndex, profile } });

describe("gpudesk on MIG slices", () => {
  it("books named slices, or any N slices of a profile or memory", () => {
    expect(bookingRequest({ host: "h100", slices: "0:2", for: "1h" }, "p", NOW)).toMatchObject({ host: "h100", slices: ["0:2"], durationMinutes: 60 });
    expect(bookingRequest({ count: "1", slice: "3g.40gb", for: "1h" }, "p", NOW)).toMatchObject({ count: 1, slice: { profile: "3g.40gb" } });
    expect(bookingRequest({ slice: "any", sliceMem: "20G", for: "1h" }, "p", NOW)).toMatchObject({ count: 1, slice: { minMemoryMiB: 20480 } });
    expect(() => bookingRequest({ slices: "0:2" }, "p", NOW)).toThrow(UsageError);
  });

  it("run -n 2 on slices refuses in one line unless asked for one process per slice", () => {
    expect(() => checkSliceRun({ count: "2", slice: "1g.10gb" })).toThrow(
      "CUDA shows a process one MIG device, so one command cannot use 2 slices: add --per-slice to start it once per slice, or book one slice",
    );
    expect(() => checkSliceRun({ host: "h", slices: "0:2,0:3" })).toThrow(/--per-slice/);
    expect(() => checkSliceRun({ count: "2", slice: "1g.10gb", perSlice: true })).not.toThrow();
    expect(() => checkSliceRun({ count: "1", slice: "1g.10gb" })).not.toThrow();
    expect(() => checkSliceRun({ count: "2" })).not.toThrow();
  });

  it("each slice's process gets its own MIG UUID; whole GPUs one process with the index list", () => {
    expect(runEnvironments({ launch: launchSettings([slice(2, "1g.10gb"), slice(3, "1g.10gb")], "r.p") })).toEqual([
      { CUDA_VISIBLE_DEVICES: "MIG-2", GPUDESK_RESERVATION: "r.p" },
      { CUDA_VISIBLE_DEVICES: "MIG-3", GPUDESK_RESERVATION: "r.p" },
    ]);
    expect(runEnvironments({ launch: launchSettings([{ index: 1, uuid: "GPU-1" }, { index: 0, uuid: "GPU-0" }], null) })).toEqual([
      { CUDA_DEVICE_ORDER: "PCI_BUS_ID", CUDA_VISIBLE_DEVICES: "0,1", GPUDESK_RESERVATION: "" },
    ]);
  });
});
