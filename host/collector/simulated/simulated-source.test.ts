import { beforeAll, describe, expect, it } from "vitest";
import { snapshotSchema, type GpuSample, type ProcessInfo, type Snapshot } from "@/lib/domain/snapshot";
import { createSimulatedSource, simulatedFleet, simulatedSnapshotAt } from "./simulated-source";

const SEED = 42;
const MINUTE = 60_000;
// A fixed UTC instant: the tests never read the machine's clock or time zone.
const T0 = Date.UTC(2025, 2, 3);

interface GpuMinute {
  t: number;
  gpu: GpuSample;
  processes: ProcessInfo[];
}

/**
 * Collects what is wrong and lets a test assert once that nothing is: an
 * expect() per value would make these tests slower than the simulation they check.
 */
function problemList() {
  const problems: string[] = [];
  return {
    check(ok: boolean, what: string) {
      if (!ok) problems.push(what);
    },
    first: (n = 10) => problems.slice(0, n),
  };
}

/** One GPU's readings, minute by minute, out of a day of snapshots. */
function seriesOf(day: Snapshot[], index: number): GpuMinute[] {
  return day.map((snapshot) => {
    const gpu = snapshot.gpus[index]!;
    return { t: Date.parse(snapshot.sampledAt), gpu, processes: snapshot.processes.filter((p) => p.gpuUuid === gpu.uuid) };
  });
}

/** Consecutive minutes with the same single process, keyed by its pid. */
function lifetimes(series: GpuMinute[]): { pid: number; minutes: GpuMinute[] }[] {
  const runs: { pid: number; minutes: GpuMinute[] }[] = [];
  for (const minute of series) {
    const pid = minute.processes[0]?.pid;
    if (pid === undefined) continue;
    const last = runs.at(-1);
    if (last && last.pid === pid && last.minutes.at(-1)!.t === minute.t - MINUTE) last.minutes.push(minute);
    else runs.push({ pid, minutes: [minute] });
  }
  return runs;
}

describe("createSimulatedSource", () => {
  const [spec] = simulatedFleet({ seed: SEED });

  it("reads the same snapshot for the same seed and time", async () => {
    const a = createSimulatedSource({ spec: spec!, seed: SEED, now: () => T0 + 5 * 3_600_000 });
    const [again] = simulatedFleet({ seed: SEED });
    const b = createSimulatedSource({ spec: again!, seed: SEED, now: () => T0 + 5 * 3_600_000 });
    expect(a.kind).toBe("simulated");
    expect(await a.read()).toEqual(await b.read());
  });

  it("reads other UUIDs and other values for another seed", async () => {
    const t = T0 + 5 * 3_600_000;
    const a = simulatedSnapshotAt(spec!, SEED, t);
    const [otherSpec] = simulatedFleet({ seed: SEED + 1 });
    const b = simulatedSnapshotAt(otherSpec!, SEED + 1, t);
    expect(a.gpus.map((g) => g.uuid).filter((uuid) => b.gpus.some((g) => g.uuid === uuid))).toEqual([]);
    expect(a.gpus.map((g) => g.powerDrawW)).not.toEqual(b.gpus.map((g) => g.powerDrawW));
  });

  it("moves from one second to the next, as a live view needs", () => {
    const t = T0 + 3 * 3_600_000;
    const a = simulatedSnapshotAt(spec!, SEED, t);
    const b = simulatedSnapshotAt(spec!, SEED, t + 1000);
    const changed = a.gpus.filter((g, i) => g.powerDrawW !== b.gpus[i]!.powerDrawW);
    expect(changed.length).toBeGreaterThan(a.gpus.length / 2);
  });

  it("stamps readings with the injected clock, else the real one", async () => {
    let now = T0;
    const source = createSimulatedSource({ spec: spec!, seed: SEED, now: () => now });
    expect((await source.read()).sampledAt).toBe(new Date(T0).toISOString());
    now += 1000;
    expect((await source.read()).sampledAt).toBe(new Date(T0 + 1000).toISOString());

    const before = Date.now();
    const real = await createSimulatedSource({ spec: spec!, seed: SEED }).read();
    expect(Date.parse(real.sampledAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(real.sampledAt)).toBeLessThanOrEqual(Date.now());
  });

  it("is unusable after close", async () => {
    const source = createSimulatedSource({ spec: spec!, seed: SEED, now: () => T0 });
    await source.close();
    await expect(source.read()).rejects.toThrow(/closed/);
  });
});

describe("a simulated day of the demo fleet, every minute", () => {
  const fleet = simulatedFleet({ seed: SEED });
  const days = new Map<string, Snapshot[]>();

  beforeAll(() => {
    for (const spec of fleet) {
      days.set(
        spec.hostName,
        Array.from({ length: 24 * 60 }, (_, m) => simulatedSnapshotAt(spec, SEED, T0 + m * MINUTE)),
      );
    }
  });
  const day = (host: string) => days.get(host)!;

  it("passes the snapshot schema and stays in range", () => {
    const problems = problemList();
    const check = (ok: boolean, what: string, at: string) => problems.check(ok, `${at}: ${what}`);
    for (const spec of fleet) {
      for (const snapshot of day(spec.hostName)) {
        const parsed = snapshotSchema.safeParse(snapshot);
        check(parsed.success, `schema ${parsed.error?.message}`, snapshot.sampledAt);
        const sampledAt = Date.parse(snapshot.sampledAt);
        for (const gpu of snapshot.gpus) {
          // A GPU in MIG mode and its slices report no utilization: partitioned-gpu.test.ts checks them.
          if (gpu.migMode === "Enabled") continue;
          const at = `${snapshot.sampledAt} ${spec.hostName}/${gpu.index}`;
          const own = snapshot.processes.filter((p) => p.gpuUuid === gpu.uuid);
          const util = gpu.utilizationGpuPct!;
          check(Number.isInteger(util) && util >= 0 && util <= 100, `utilization ${util}`, at);
          check(gpu.utilizationMemoryPct! >= 0 && gpu.utilizationMemoryPct! <= util, `memory utilization ${gpu.utilizationMemoryPct}`, at);
          check(gpu.memoryUsedMiB! >= 0 && gpu.memoryUsedMiB! <= gpu.memoryTotalMiB!, `memory ${gpu.memoryUsedMiB}`, at);
          check(own.reduce((sum, p) => sum + p.usedMemoryMiB!, 0) <= gpu.memoryUsedMiB!, "processes exceed memory used", at);
          check(gpu.powerDrawW! > 0 && gpu.powerDrawW! <= gpu.powerLimitW!, `power ${gpu.powerDrawW}`, at);
          check(gpu.temperatureC! >= 20 && gpu.temperatureC! <= 90, `temperature ${gpu.temperatureC}`, at);
          check(gpu.fanSpeedPct === null || (gpu.fanSpeedPct >= 0 && gpu.fanSpeedPct <= 100), `fan ${gpu.fanSpeedPct}`, at);
          check(own.length > 0 || (util === 0 && gpu.memoryUsedMiB === 0), "busy without a process", at);
        }
        for (const p of snapshot.processes) {
          const at = `${snapshot.sampledAt} ${spec.hostName} pid ${p.pid}`;
          check(snapshot.gpus.some((g) => g.uuid === p.gpuUuid), "unknown GPU", at);
          check(Date.parse(p.startedAt!) <= sampledAt, `started ${p.startedAt} after the sample`, at);
          check(/^(alice|bob|carol|dave|erin|frank)$/.test(p.user!), `user ${p.user}`, at);
          check(p.command!.startsWith("python ") && p.usedMemoryMiB! > 0, `command ${p.command}`, at);
          check(p.reservationId === null, "reservation id", at);
        }
        check(new Set(snapshot.processes.map((p) => p.pid)).size === snapshot.processes.length, "duplicate pid", snapshot.sampledAt);
      }
    }
    expect(problems.first()).toEqual([]);
  });

  it("keeps each process's start time, and it matches when the process appeared", () => {
    const problems = problemList();
    for (const spec of fleet) {
      const firstSeen = new Map<string, { t: number; startedAt: string }>();
      for (const snapshot of day(spec.hostName)) {
        for (const p of snapshot.processes) {
          const key = `${spec.hostName} ${p.gpuUuid} pid ${p.pid}`;
          const seen = firstSeen.get(key);
          if (seen) problems.check(p.startedAt === seen.startedAt, `${key}: start moved to ${p.startedAt}`);
          else firstSeen.set(key, { t: Date.parse(snapshot.sampledAt), startedAt: p.startedAt! });
        }
      }
      for (const [key, { t, startedAt }] of firstSeen) {
        // A process already running at midnight may have started any time before.
        if (t > T0) problems.check(t - Date.parse(startedAt) < MINUTE, `${key}: started ${startedAt}, first seen ${t}`);
      }
    }
    expect(problems.first()).toEqual([]);
  });

  it("changes phase: jobs start and end during the day", () => {
    const gpu0 = seriesOf(day("sim-h100-a"), 0);
    expect(gpu0.some((m) => m.processes.length === 0)).toBe(true);
    expect(new Set(gpu0.flatMap((m) => m.processes.map((p) => p.startedAt))).size).toBeGreaterThan(1);
    const pids = new Set(fleet.flatMap((spec) => day(spec.hostName).flatMap((s) => s.processes.map((p) => p.pid))));
    expect(pids.size).toBeGreaterThan(20);
  });

  it("runs training ranks at 85–99 % with steady high memory, under Docker and Slurm too", () => {
    const h100 = day("sim-h100-a");
    const problems = problemList();
    let steady = 0;
    for (const snapshot of h100) {
      const ranks = snapshot.gpus.slice(0, 4).map((g) => snapshot.processes.find((p) => p.gpuUuid === g.uuid));
      const job = ranks[0];
      if (!job || ranks.some((p) => p?.startedAt !== job.startedAt || p.user !== job.user)) continue;
      // Past the warm-up, while the weights load, the ranks are in their steady state.
      if (Date.parse(snapshot.sampledAt) < Date.parse(job.startedAt!) + 5 * MINUTE) continue;
      steady++;
      snapshot.gpus.slice(0, 4).forEach((gpu, rank) => {
        const at = `${snapshot.sampledAt} GPU ${rank}`;
        // GPU 2 also carries the squatter, whose share can push it to 100 %.
        const ceiling = rank === 2 ? 100 : 99;
        problems.check(gpu.utilizationGpuPct! >= 85 && gpu.utilizationGpuPct! <= ceiling, `${at}: utilization ${gpu.utilizationGpuPct}`);
        problems.check(gpu.memoryUsedMiB! > 0.4 * gpu.memoryTotalMiB!, `${at}: memory ${gpu.memoryUsedMiB}`);
        problems.check(gpu.temperatureC! > 55 && gpu.powerDrawW! > 400, `${at}: ${gpu.temperatureC} °C, ${gpu.powerDrawW} W`);
      });
    }
    expect(problems.first()).toEqual([]);
    expect(steady).toBeGreaterThan(12 * 60);

    const slurm = h100.flatMap((s) => s.processes.filter((p) => p.gpuUuid === s.gpus[4]!.uuid));
    expect(slurm.length).toBeGreaterThan(0);
    for (const p of slurm) expect(p.slurmJobId).toMatch(/^\d+$/);
    const docker = day("sim-a100-a").flatMap((s) => s.processes.filter((p) => p.gpuUuid === s.gpus[0]!.uuid));
    expect(docker.length).toBeGreaterThan(0);
    for (const p of docker) expect(p.container).toMatch(/^[0-9a-f]{12}$/);
  });

  it("has a squatter: another user's process on a GPU of a multi-GPU job set", () => {
    const squatted = day("sim-h100-a").filter((snapshot) =>
      snapshot.gpus.some((gpu) => {
        const users = new Set(snapshot.processes.filter((p) => p.gpuUuid === gpu.uuid).map((p) => p.user));
        if (users.size < 2) return false;
        // The job owner is the user who also holds other GPUs of the host.
        return [...users].some(
          (user) => new Set(snapshot.processes.filter((p) => p.user === user).map((p) => p.gpuUuid)).size >= 3,
        );
      }),
    );
    expect(squatted.length).toBeGreaterThan(0.4 * 24 * 60);
  });

  it("leaks: memory grows to near the total, then the process restarts small", () => {
    const series = seriesOf(day("sim-h100-a"), 6);
    const total = series[0]!.gpu.memoryTotalMiB!;
    const runs = lifetimes(series);
    expect(runs.length).toBeGreaterThanOrEqual(8);
    // The first and last runs are cut by the day's edges; the middle ones are whole lives.
    for (const run of runs.slice(1, -1)) {
      const memory = run.minutes.map((m) => m.processes[0]!.usedMemoryMiB!);
      for (let i = 1; i < memory.length; i++) expect(memory[i]!).toBeGreaterThanOrEqual(memory[i - 1]!);
      expect(memory[0]!).toBeLessThan(0.2 * total);
      expect(memory.at(-1)!).toBeGreaterThan(0.95 * total);
      expect(memory.at(-1)!).toBeLessThan(total);
    }
  });

  it("has bursty notebooks: busy and idle within one kernel's life", () => {
    for (const [host, index] of [["sim-a100-a", 2], ["sim-4090-a", 0]] as const) {
      const runs = lifetimes(seriesOf(day(host), index));
      const bursty = runs.filter(
        (run) => run.minutes.some((m) => m.gpu.utilizationGpuPct! >= 50) && run.minutes.some((m) => m.gpu.utilizationGpuPct === 0),
      );
      expect(bursty.length).toBeGreaterThan(0);
      for (const run of runs) expect(run.minutes[0]!.processes[0]!.command).toContain("ipykernel_launcher");
    }
  });

  it("has a GPU held idle: memory allocated at 0 % for hours", () => {
    const runs = lifetimes(seriesOf(day("sim-h100-a"), 7));
    const longest = runs.reduce((a, b) => (b.minutes.length > a.minutes.length ? b : a));
    expect(longest.minutes.length).toBeGreaterThan(4 * 60);
    for (const m of longest.minutes) {
      expect(m.gpu.utilizationGpuPct).toBe(0);
      expect(m.gpu.memoryUsedMiB).toBeGreaterThan(0.15 * m.gpu.memoryTotalMiB!);
    }
  });

  it("has a free GPU at idle power and low temperature all day", () => {
    const problems = problemList();
    for (const { t, gpu, processes } of seriesOf(day("sim-4090-a"), 1)) {
      problems.check(
        processes.length === 0 && gpu.utilizationGpuPct === 0 && gpu.memoryUsedMiB === 0 && gpu.pstate === "P8",
        `${t}: not free`,
      );
      problems.check(gpu.powerDrawW! < 30 && gpu.temperatureC! < 45, `${t}: ${gpu.powerDrawW} W, ${gpu.temperatureC} °C`);
    }
    expect(problems.first()).toEqual([]);
  });

  it("reports fan speed as null on data-center boards and as a number on the RTX 4090", () => {
    const fans = (host: string) => day(host).flatMap((s) => s.gpus.map((g) => g.fanSpeedPct));
    expect(fans("sim-h100-a").every((f) => f === null)).toBe(true);
    expect(fans("sim-a100-a").every((f) => f === null)).toBe(true);
    expect(fans("sim-4090-a").every((f) => typeof f === "number")).toBe(true);
    expect(fans("sim-4090-a").some((f) => f! > 0)).toBe(true);
  });
});

describe("a large simulated fleet", () => {
  it("reads 1000 GPUs that pass the schema", () => {
    const seed = 9;
    const fleet = simulatedFleet({ seed, gpuCount: 1000 });
    for (const t of [T0, T0 + 7 * 3_600_000 + 1234]) {
      const snapshots = fleet.map((spec) => simulatedSnapshotAt(spec, seed, t));
      expect(snapshots.reduce((sum, s) => sum + s.gpus.length, 0)).toBe(1000);
      for (const snapshot of snapshots) snapshotSchema.parse(snapshot);
      const processes = snapshots.flatMap((s) => s.processes);
      expect(new Set(processes.map((p) => p.user)).size).toBe(6);
    }
  });
});
