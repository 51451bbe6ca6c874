import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { snapshotSchema, type Snapshot } from "@/lib/domain/snapshot";
import { DEFAULT_ALERT_CONFIG } from "@/server/alerts/alert-config";
import { AlertMonitor } from "@/server/alerts/alert-monitor";
import { memoryPersistence } from "@/server/alerts/testing";
import { Reconciler } from "@/server/attribution/reconcile-fleet";
import { staticDirectory } from "@/server/attribution/user-directory";
import { createNvidiaSmiSource, type NvidiaSmiMode } from "@/host/collector/nvidia-smi/nvidia-smi-source";
import { fakeNvidiaSmiPath, ownFixturesDir } from "@/host/collector/nvidia-smi/test-fixtures";
import { FleetState } from "@/server/fleet/fleet-state";
import { makeGpu } from "@/server/testing/factories";

/**
 * A GPU that fell off the bus (host/collector/fixtures/lost-gpu): nvidia-smi
 * prints "Unable to determine the device handle for GPU 0000:3B:00.0: GPU is
 * lost…" in place of GPU 1's row and exits with 15. The two other GPUs and
 * their processes must keep reporting, with their own indices; GPU 1 drops
 * out of the host's reading, which raises its "GPU lost" alert.
 */

const LOST_LOG = /^GPU 0000:3B:00\.0 does not answer \(GPU is lost/;
const GPU0 = "GPU-fcd5b05f-245b-4ec1-a944-0a8d5f183dd5";
const GPU2 = "GPU-9fafbc76-becd-4e43-b463-1ed7b4abd434";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An nvidia-smi that replays the lost-GPU host; `prelude` (shell) runs first. */
function lostGpuHost(prelude = ""): string {
  const dir = mkdtempSync(path.join(tmpdir(), "gpudesk-lost-gpu-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const command = path.join(dir, "nvidia-smi");
  const fixture = path.join(ownFixturesDir, "lost-gpu");
  writeFileSync(command, `#!/bin/sh\n${prelude}\nFAKE_NVIDIA_SMI_DIR='${fixture}' exec '${process.execPath}' '${fakeNvidiaSmiPath}' "$@"\n`);
  chmodSync(command, 0o755);
  return command;
}

async function read(command: string, mode: NvidiaSmiMode): Promise<{ snapshot: Snapshot; logs: string[] }> {
  const logs: string[] = [];
  const source = await createNvidiaSmiSource({ path: command, hostName: "node-lost", intervalMs: 200, mode, log: (line) => logs.push(line) });
  cleanups.push(() => source.close());
  return { snapshot: snapshotSchema.parse(await source.read()), logs };
}

function expectOthersIntact(snapshot: Snapshot): void {
  expect(snapshot.gpus.map((gpu) => [gpu.index, gpu.uuid, gpu.pciBusId])).toEqual([
    [0, GPU0, "00000000:17:00.0"],
    [2, GPU2, "00000000:65:00.0"],
  ]);
  expect(snapshot.gpus.map((gpu) => gpu.memoryUsedMiB)).toEqual([40512, 3660]);
  expect(snapshot.host).toEqual({ name: "node-lost", driverVersion: "470.256.02", cudaVersion: "11.4" });
  expect(snapshot.processes.map((process) => [process.gpuUuid, process.pid])).toEqual([
    [GPU0, 48211],
    [GPU0, 48390],
    [GPU2, 50102],
  ]);
}

describe.each(["spawn", "long-lived"] as const)("a lost GPU, %s mode", (mode) => {
  it("keeps the other GPUs, their processes and the host's versions; names the lost one in the log", async () => {
    const { snapshot, logs } = await read(lostGpuHost(), mode);
    expectOthersIntact(snapshot);
    expect(logs.filter((line) => LOST_LOG.test(line))).toHaveLength(1);
  });
});

describe("a lost GPU, through nvidia-smi -q -x", () => {
  it("keeps the other GPUs with their nvidia-smi indices when the CSV queries fail", async () => {
    // The CSV queries fail outright (as a driver in trouble may): the source falls back to -q -x.
    const csvFails = `case "$*" in *--query-*) echo "Failed to initialize NVML: Unknown Error"; exit 255;; esac`;
    const { snapshot } = await read(lostGpuHost(csvFails), "spawn");
    expect(snapshot.gpus.map((gpu) => [gpu.index, gpu.uuid])).toEqual([
      [0, GPU0],
      [2, GPU2],
    ]);
    expect(snapshot.host.driverVersion).toBe("470.256.02");
    // The compute processes of the GPUs that answer (the dump's graphics-only one is not one).
    expect(snapshot.processes.map((process) => process.pid).sort()).toEqual([48211, 48390, 50102]);
  });
});

describe("the alert for a lost GPU", () => {
  it("opens for GPU 1 alone once the reading without it has lasted the hold time", async () => {
    const { snapshot } = await read(lostGpuHost(), "spawn");
    // GPU 2 of the fixture has 2 uncorrectable ECC errors, which is an alert of its own.
    const lostGpu = makeGpu({ uuid: "GPU-3b3b3b3b-0000-4000-8000-00000000003b", index: 1, pciBusId: "00000000:3B:00.0" });
    let clock = 0;
    const fleet = new FleetState({ offlineAfterMs: 15_000, simulated: false, now: () => clock });
    const persistence = memoryPersistence();
    const monitor = new AlertMonitor({ config: DEFAULT_ALERT_CONFIG, persistence });
    const reconciler = new Reconciler(() => [], staticDirectory([]));
    fleet.connectHost("h-lost", "node-lost", false);
    const feed = (reading: Snapshot, at: number) => {
      clock = at;
      fleet.ingest("h-lost", { ...reading, sampledAt: new Date(at).toISOString(), processes: [] });
      fleet.checkOffline();
      const view = fleet.snapshot();
      reconciler.run(view, at);
      monitor.observe(view, reconciler.current(), new Map(), at);
    };
    // Before: all three GPUs report. Then nvidia-smi loses GPU 1, as recorded.
    const before = { ...snapshot, gpus: [snapshot.gpus[0], lostGpu, snapshot.gpus[1]] };
    let t = 0;
    for (; t < 10_000; t += 1000) feed(before, t);
    const hold = DEFAULT_ALERT_CONFIG.holdMs.gpu_lost;
    for (; t <= 10_000 + hold + 2000; t += 1000) feed(snapshot, t);
    await monitor.idle();

    const opened = persistence.changes.filter((change) => change.event === "opened");
    expect(opened.filter((change) => change.kind === "gpu_lost").map((change) => [change.row.gpuUuid, change.row.gpuIndex])).toEqual([[lostGpu.uuid, 1]]);
    // The host itself still reports: no "agent silent", and the GPU that answers keeps its own alert (its 2 ECC errors).
    expect(opened.map((change) => change.kind).sort()).toEqual(["gpu_health", "gpu_lost"]);
  });
});
