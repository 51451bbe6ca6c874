import { chmodSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { snapshotSchema, type Snapshot } from "@/lib/domain/snapshot";
import type { GpuSource } from "@/host/collector/source";
import {
  createNvidiaSmiSource,
  findNvidiaSmi,
  NvidiaSmiError,
  type NvidiaSmiMode,
} from "@/host/collector/nvidia-smi/nvidia-smi-source";
import { fakeNvidiaSmiPath, ownFixturesDir } from "@/host/collector/nvidia-smi/test-fixtures";

/**
 * The source against scripts/fake-nvidia-smi.mjs, spawned for real. Each test
 * gets its own copy of a fixture folder (so it can change the process list
 * while the fake runs) and a small shell wrapper pointing the fake at it.
 */

const INTERVAL_MS = 200;
const H200_UUID = "GPU-ef2803ab-ed44-fce3-aa80-5f09cb377b2d";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Reads until a reading passes `check`, and returns it. The deadline only
 * bounds a broken test: how soon a change shows depends on the machine's
 * load, what the reading then holds does not.
 */
async function readUntil(source: GpuSource, check: (snapshot: Snapshot) => boolean, timeoutMs = 15_000): Promise<Snapshot> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const snapshot = await readValid(source);
    if (check(snapshot)) return snapshot;
    if (Date.now() > deadline) throw new Error(`no reading passed the check within ${timeoutMs} ms; the last: ${JSON.stringify(snapshot)}`);
    await sleep(INTERVAL_MS / 2);
  }
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface FakeHost {
  dir: string;
  command: string;
  setProcesses(fixtureFile: string): void;
}

/** A private copy of a fixture folder and an executable that replays it; `prelude` runs before the fake. */
function fakeHost(fixture: string, prelude = ""): FakeHost {
  const dir = mkdtempSync(path.join(tmpdir(), "gpudesk-fake-smi-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  for (const name of readdirSync(path.join(ownFixturesDir, fixture))) {
    copyFileSync(path.join(ownFixturesDir, fixture, name), path.join(dir, name));
  }
  const command = path.join(dir, "nvidia-smi");
  writeFileSync(
    command,
    `#!/bin/sh\n${prelude}\nFAKE_NVIDIA_SMI_DIR='${dir}' exec '${process.execPath}' '${fakeNvidiaSmiPath}' "$@"\n`,
  );
  chmodSync(command, 0o755);
  return {
    dir,
    command,
    setProcesses(fixtureFile) {
      // Write and rename, so that the fake never reads a half-written file.
      const text = readFileSync(path.join(ownFixturesDir, fixture, fixtureFile), "utf8");
      writeFileSync(path.join(dir, "next.csv"), text);
      renameSync(path.join(dir, "next.csv"), path.join(dir, "query-compute-apps__load.csv"));
    },
  };
}

async function openSource(command: string, mode: NvidiaSmiMode, extra: { timeoutMs?: number } = {}) {
  const logs: string[] = [];
  const source = await createNvidiaSmiSource({
    path: command,
    hostName: "gpu-test-01",
    intervalMs: INTERVAL_MS,
    mode,
    log: (line) => logs.push(line),
    ...extra,
  });
  cleanups.push(() => source.close());
  return { source, logs };
}

async function readValid(source: GpuSource): Promise<Snapshot> {
  return snapshotSchema.parse(await source.read());
}

/** Children of this process still running the fake (to prove close() stops them). */
function fakeChildren(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (ppid === process.pid && cmdline.includes("fake-nvidia-smi")) found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

const modes: NvidiaSmiMode[] = ["spawn", "long-lived"];

describe.each(modes)("createNvidiaSmiSource, %s mode", (mode) => {
  it("reads the replayed H200 with its real process, ownership left null", async () => {
    const host = fakeHost("h200-driver-580");
    const { source } = await openSource(host.command, mode);
    const before = Date.now();
    const snapshot = await readValid(source);
    expect(snapshot.host).toEqual({ name: "gpu-test-01", driverVersion: "580.159.04", cudaVersion: "13.0" });
    expect(snapshot.gpus).toHaveLength(1);
    expect(snapshot.gpus[0]).toMatchObject({ uuid: H200_UUID, name: "NVIDIA H200", memoryTotalMiB: 143771, memoryUsedMiB: 3599, fanSpeedPct: null, migMode: "Disabled" });
    expect(snapshot.processes).toEqual([
      { gpuUuid: H200_UUID, pid: 691, name: "/tmp/gpudesk-hog", usedMemoryMiB: 3590, user: null, command: null, startedAt: null, container: null, slurmJobId: null, reservationId: null },
    ]);
    expect(Date.parse(snapshot.sampledAt)).toBeGreaterThan(before - 5 * INTERVAL_MS);
  });

  it("follows a process list from some rows to none and back", async () => {
    const host = fakeHost("two-gpu-host");
    const { source } = await openSource(host.command, mode);
    const first = await readValid(source);
    expect(first.gpus.map((g) => [g.index, g.memoryUsedMiB])).toEqual([
      [0, 40512],
      [1, 3660],
    ]);
    expect(first.processes.map((p) => [p.pid, p.name])).toEqual([
      [48211, "/usr/bin/python3"],
      [48390, "/opt/jobs/sweep, lr=3e-4/bin/trainer"],
      [50102, "/usr/bin/python3"],
    ]);

    host.setProcesses("query-compute-apps__idle.csv");
    const idle = await readUntil(source, (snapshot) => snapshot.processes.length < 3);
    expect(idle.processes).toEqual([]);
    expect(idle.gpus).toHaveLength(2);

    host.setProcesses("query-compute-apps__load.csv");
    const busy = await readUntil(source, (snapshot) => snapshot.processes.length > 0);
    expect(busy.processes.map((p) => p.pid)).toEqual([48211, 48390, 50102]);
  });

  it("reports MIG utilization as null and still lists the MIG processes", async () => {
    const { source } = await openSource(fakeHost("mig-host").command, mode);
    const snapshot = await readValid(source);
    expect(snapshot.gpus[0]).toMatchObject({ migMode: "Enabled", utilizationGpuPct: null, utilizationMemoryPct: null, memoryUsedMiB: 14213 });
    expect(snapshot.processes.map((p) => [p.pid, p.usedMemoryMiB])).toEqual([
      [7311, 9984],
      [7458, 4096],
    ]);
    expect(snapshot.host.cudaVersion).toBe("12.8");
  });

  it("reads CRLF output of a Windows host through a real pipe", async () => {
    const { source } = await openSource(fakeHost("windows-host").command, mode);
    const snapshot = await readValid(source);
    expect(snapshot.gpus[0]).toMatchObject({ name: "NVIDIA GeForce RTX 4070", eccErrorsUncorrected: null, pstate: "P2" });
    expect(snapshot.processes.map((p) => p.name)).toContain("C:\\Users\\mara\\Apps\\Studio, Inc\\render-node.exe");
    expect(snapshot.processes.every((p) => p.usedMemoryMiB === null)).toBe(true);
  });

  it("drops the optional fields once when the driver refuses one, logging one line", async () => {
    const refuse = `case "$*" in *mig.mode.current*) echo 'Field "mig.mode.current" is not a valid field to query.'; echo; exit 2;; esac`;
    const { source, logs } = await openSource(fakeHost("h200-driver-580", refuse).command, mode);
    const snapshot = await readValid(source);
    expect(snapshot.gpus[0]).toMatchObject({ uuid: H200_UUID, memoryUsedMiB: 3599, migMode: null, eccErrorsUncorrected: null });
    await readValid(source);
    const refusals = logs.filter((l) => l.includes("refuses field"));
    expect(refusals).toEqual([
      'this driver refuses field "mig.mode.current"; querying without mig.mode.current, ecc.errors.uncorrected.volatile.total',
    ]);
  });

  it("rejects reads with a clear error when nvidia-smi cannot talk to the driver", async () => {
    const broken = `echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."; exit 9`;
    const { source, logs } = await openSource(fakeHost("h200-driver-580", broken).command, mode);
    expect(logs[0]).toMatch(/^no CUDA version: nvidia-smi -q exited with code 9: NVIDIA-SMI has failed/);
    const error = await source.read().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NvidiaSmiError);
    expect(error).toMatchObject({ code: "failed" });
    expect((error as Error).message).toMatch(/exited with code 9: NVIDIA-SMI has failed because it couldn't communicate/);
  });

  it("turns a hung nvidia-smi into a timeout error", async () => {
    const { source } = await openSource(fakeHost("h200-driver-580", "sleep 5").command, mode, { timeoutMs: 300 });
    await expect(source.read()).rejects.toMatchObject({ code: "timeout" });
  });

  it("refuses to read after close", async () => {
    const { source } = await openSource(fakeHost("h200-driver-580").command, mode);
    await source.read();
    await source.close();
    await expect(source.read()).rejects.toThrow(/closed/);
    expect(fakeChildren()).toEqual([]);
  });
});

describe("long-lived mode", () => {
  it("keeps one child per query and returns fresh, changing values", async () => {
    const host = fakeHost("two-gpu-host", "export FAKE_NVIDIA_SMI_VARY=1");
    const { source } = await openSource(host.command, "long-lived");
    const first = await readValid(source);
    // The values follow the clock (FAKE_NVIDIA_SMI_VARY): newer lines of the same children show a change.
    const utilization = (snapshot: Snapshot) => snapshot.gpus.map((g) => g.utilizationGpuPct);
    const later = await readUntil(source, (snapshot) => JSON.stringify(utilization(snapshot)) !== JSON.stringify(utilization(first)));
    expect(Date.parse(later.sampledAt)).toBeGreaterThan(Date.parse(first.sampledAt));
    // Two loops plus nothing else: no per-read spawns while the children are healthy.
    expect(fakeChildren()).toHaveLength(2);
  });

  it("says when nvidia-smi printed its next tick (once per tick, two GPUs' lines in it), so the agent reads then; spawn mode never does", async () => {
    const host = fakeHost("two-gpu-host");
    const { source } = await openSource(host.command, "long-lived");
    const ticks: number[] = [];
    const stop = source.onTick!(() => ticks.push(Date.now()));
    await readValid(source);
    await new Promise((resolve) => setTimeout(resolve, 4.2 * INTERVAL_MS));
    stop();
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    expect(ticks.length).toBeLessThanOrEqual(6);
    const gaps = ticks.slice(1).map((at, i) => at - ticks[i]!);
    expect(Math.min(...gaps)).toBeGreaterThan(INTERVAL_MS / 2);
    const spawned = await openSource(host.command, "spawn");
    expect(spawned.source.onTick).toBeUndefined();
  });

  it("says so only once a tick is whole: a read then has every GPU's line of that tick, none from the tick before", async () => {
    const host = fakeHost("two-gpu-host");
    const setFile = path.join(host.dir, "set.txt");
    const setValue = (value: number) => {
      writeFileSync(`${setFile}.new`, `utilization.gpu=${value} %\n`);
      renameSync(`${setFile}.new`, setFile);
    };
    setValue(1);
    writeFileSync(host.command, readFileSync(host.command, "utf8").replace("#!/bin/sh\n", `#!/bin/sh\nexport FAKE_NVIDIA_SMI_SET='${setFile}'\n`));
    const { source } = await openSource(host.command, "long-lived");
    const seen: (number | null)[][] = [];
    await new Promise<void>((resolve) => {
      let value = 1;
      const stop = source.onTick!(() => {
        void source.read().then((snapshot) => {
          seen.push(snapshot.gpus.map((gpu) => gpu.utilizationGpuPct));
          // The next tick prints a new value on both GPUs: a read of half a tick would show two.
          setValue((value += 1));
          if (seen.length === 5) {
            stop();
            resolve();
          }
        });
      });
    });
    for (const values of seen) {
      expect(values).toHaveLength(2);
      expect(values[0]).toBe(values[1]);
    }
  });

  it("restarts children that exit, logging per state change rather than per attempt", async () => {
    // Loop children live for 0.5 s and then die; one-shot calls work.
    const dying = `case "$*" in *-lms*) FAKE_NVIDIA_SMI_DIR="$(dirname "$0")" timeout 0.5 '${process.execPath}' '${fakeNvidiaSmiPath}' "$@"; exit 3;; esac`;
    const { source, logs } = await openSource(fakeHost("h200-driver-580", dying).command, "long-lived");
    for (let i = 0; i < 8; i++) {
      const snapshot = await readValid(source);
      expect(snapshot.gpus[0].uuid).toBe(H200_UUID);
      expect(snapshot.processes.map((p) => p.pid)).toEqual([691]);
      await sleep(300);
    }
    const failures = logs.filter((l) => l.includes("restarting with backoff"));
    const recoveries = logs.filter((l) => l.includes("is running again"));
    expect(failures.length).toBeGreaterThanOrEqual(2);
    expect(failures[0]).toMatch(/^nvidia-smi --query-(gpu|compute-apps) exited with code 3/);
    // Each failure after the first follows a recovery: no repeated lines for one outage.
    expect(failures.length).toBeLessThanOrEqual(recoveries.length + 2);
  });
});

describe("finding nvidia-smi", () => {
  it("rejects a missing binary with a not-found error", async () => {
    await expect(
      createNvidiaSmiSource({ path: "/nonexistent/nvidia-smi", hostName: "h", intervalMs: 1000 }),
    ).rejects.toMatchObject({ name: "NvidiaSmiError", code: "not-found", message: "nvidia-smi not found or not executable at /nonexistent/nvidia-smi" });
  });

  it("searches the PATH for an executable nvidia-smi", () => {
    const host = fakeHost("h200-driver-580");
    const empty = mkdtempSync(path.join(tmpdir(), "gpudesk-empty-"));
    cleanups.push(() => rmSync(empty, { recursive: true, force: true }));
    expect(findNvidiaSmi(`${empty}${path.delimiter}${host.dir}`)).toBe(host.command);
    expect(findNvidiaSmi(empty)).toBeNull();
    expect(findNvidiaSmi("")).toBeNull();
  });
});
