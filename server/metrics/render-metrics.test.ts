import { chmodSync, copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createNvidiaSmiSource } from "@/host/collector/nvidia-smi/nvidia-smi-source";
import { fakeNvidiaSmiPath, ownFixturesDir } from "@/host/collector/nvidia-smi/test-fixtures";
import { FleetState } from "@/server/fleet/fleet-state";
import { renderMetrics } from "@/server/metrics/render-metrics";

/**
 * A reading of a real H200 (driver 580, recorded by scripts/capture-nvidia-fixtures.sh),
 * read through the nvidia-smi source as the agent would, exported as
 * dcgm-exporter would name it.
 */
const dir = mkdtempSync(path.join(tmpdir(), "gpudesk-metrics-h200-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("dcgm-exporter names for a real H200 reading", () => {
  it("exports the captured values with dcgm-exporter's units and labels", async () => {
    for (const name of readdirSync(path.join(ownFixturesDir, "h200-driver-580"))) {
      copyFileSync(path.join(ownFixturesDir, "h200-driver-580", name), path.join(dir, name));
    }
    const command = path.join(dir, "nvidia-smi");
    writeFileSync(command, `#!/bin/sh\nFAKE_NVIDIA_SMI_DIR='${dir}' exec '${process.execPath}' '${fakeNvidiaSmiPath}' "$@"\n`);
    chmodSync(command, 0o755);
    const source = await createNvidiaSmiSource({ path: command, hostName: "h200-node", intervalMs: 1000, mode: "spawn", log: () => {} });
    const snapshot = await source.read();
    await source.close();

    const now = Date.parse(snapshot.sampledAt);
    const fleet = new FleetState({ offlineAfterMs: 60_000, simulated: false, now: () => now });
    fleet.connectHost("host-1", "h200-node", false);
    fleet.ingest("host-1", snapshot);
    const { body } = await renderMetrics({
      fleet: fleet.snapshot(),
      bookings: new Map(),
      activeBookings: 0,
      openAlerts: {},
      ingest: { acceptedSnapshots: 1, rejectedSnapshots: 0, rejectedMessages: 0, droppedByAgents: 0 },
      nowMs: now,
    });
    const uuid = "GPU-ef2803ab-ed44-fce3-aa80-5f09cb377b2d";
    const labels = `gpu="0",UUID="${uuid}",pci_bus_id="00000000:00:06.0",device="nvidia0",modelName="NVIDIA H200",Hostname="h200-node",DCGM_FI_DRIVER_VERSION="580.159.04"`;
    // The capture under load: `query-gpu__load.csv` of that host.
    const gpu = snapshot.gpus.find((g) => g.uuid === uuid)!;
    expect(body).toContain(`DCGM_FI_DEV_GPU_UTIL{${labels}} ${gpu.utilizationGpuPct}`);
    expect(body).toContain(`DCGM_FI_DEV_FB_USED{${labels}} ${gpu.memoryUsedMiB}`);
    expect(body).toContain(`DCGM_FI_DEV_FB_FREE{${labels}} ${gpu.memoryTotalMiB! - gpu.memoryUsedMiB!}`);
    expect(body).toContain(`DCGM_FI_DEV_GPU_TEMP{${labels}} ${gpu.temperatureC}`);
    expect(body).toContain(`DCGM_FI_DEV_POWER_USAGE{${labels}} ${gpu.powerDrawW}`);
    expect(body).toContain(`DCGM_FI_DEV_SM_CLOCK{${labels}} ${gpu.smClockMHz}`);
    expect(gpu.memoryTotalMiB).toBe(143771);
    expect(body).toMatch(/^# TYPE DCGM_FI_DEV_GPU_UTIL gauge$/m);
    expect(body).toMatch(/^# HELP DCGM_FI_DEV_FB_FREE Framebuffer memory free \(in MiB\)\.$/m);
  });
});

describe("the real H100 MIG recording through the nvidia-smi source", () => {
  it("reads four slices with their processes, and exports each slice with GPU_I_PROFILE and GPU_I_ID", async () => {
    const migDir = mkdtempSync(path.join(tmpdir(), "gpudesk-metrics-h100-mig-"));
    try {
      const command = path.join(migDir, "nvidia-smi");
      writeFileSync(command, `#!/bin/sh\nFAKE_NVIDIA_SMI_DIR='${path.join(ownFixturesDir, "h100-mig-recording")}' exec '${process.execPath}' '${fakeNvidiaSmiPath}' "$@"\n`);
      chmodSync(command, 0o755);
      const source = await createNvidiaSmiSource({ path: command, hostName: "h100-mig", intervalMs: 1000, mode: "spawn", log: () => {} });
      const snapshot = await source.read();
      await source.close();
      expect(snapshot.gpus.map((gpu) => [gpu.uuid, gpu.mig?.profile ?? null, gpu.memoryTotalMiB])).toEqual([
        ["GPU-00000000-0000-0000-0000-000000000000", null, 81559],
        ["MIG-00000000-0000-0000-0000-000000000000", "3g.40gb", 40448],
        ["MIG-00000001-0000-0000-0000-000000000001", "2g.20gb", 20096],
        ["MIG-00000002-0000-0000-0000-000000000002", "1g.10gb", 9984],
        ["MIG-00000003-0000-0000-0000-000000000003", "1g.10gb", 9984],
      ]);
      expect(new Set(snapshot.processes.map((p) => p.gpuUuid))).toEqual(new Set(["MIG-00000000-0000-0000-0000-000000000000"]));

      const now = Date.parse(snapshot.sampledAt);
      const fleet = new FleetState({ offlineAfterMs: 60_000, simulated: false, now: () => now });
      fleet.connectHost("host-1", "h100-mig", false);
      fleet.ingest("host-1", snapshot);
      const { body } = await renderMetrics({
        fleet: fleet.snapshot(),
        bookings: new Map(),
        activeBookings: 0,
        openAlerts: {},
        ingest: { acceptedSnapshots: 1, rejectedSnapshots: 0, rejectedMessages: 0, droppedByAgents: 0 },
        nowMs: now,
      });
      const used = body.split("\n").filter((line) => line.startsWith("DCGM_FI_DEV_FB_USED{"));
      expect(used).toHaveLength(5);
      expect(used.find((line) => line.includes('GPU_I_ID="9"'))).toContain('GPU_I_PROFILE="1g.10gb"');
      expect(used.find((line) => line.includes('GPU_I_ID="2"'))).toMatch(/UUID="GPU-00000000-0000-0000-0000-000000000000".* 11091$/);
      // gpudesk's own series name each slice as every surface does.
      const processes = body.split("\n").filter((line) => line.startsWith("gpudesk_gpu_processes{"));
      expect(processes.find((line) => line.includes('UUID="MIG-00000002-0000-0000-0000-000000000002"'))).toContain('unit="GPU 0:2 (1g.10gb)"');
      expect(processes.find((line) => line.includes('UUID="MIG-00000000-0000-0000-0000-000000000000"'))).toMatch(/unit="GPU 0:0 \(3g\.40gb\)".* 3$/);
    } finally {
      rmSync(migDir, { recursive: true, force: true });
    }
  }, 30_000);
});
