import { HOUR, MINUTE, kernelIdOf, type WorkloadContext } from "./activity";
import { between, hashOf, hexOf, intBetween, jitterOf, pickOf, secondsBetween, smoothNoise, unitOf, windowAt } from "./hash";
import { SIMULATED_USERS } from "./models";

/**
 * Workloads that occupy one GPU each. Every one locates its current phase
 * from the time alone (see `windowAt`), so a reading never depends on the
 * readings before it.
 */

const NOTEBOOK_BUCKET_MS = 3 * MINUTE;

/**
 * A Jupyter kernel: cells run in bursts, the person reads and types in
 * between. Memory only steps up, because PyTorch's caching allocator keeps
 * what earlier cells allocated.
 */
export function addNotebook(ctx: WorkloadContext, gpu: number): void {
  const { spec, activity, key, t } = ctx;
  const window = windowAt(t, secondsBetween(3 * HOUR, 5 * HOUR, ...key, "length"), ...key);
  const session = [hashOf(...key, window.index)];
  const start = window.start + secondsBetween(5 * MINUTE, 60 * MINUTE, ...session, "gap-before");
  const end = window.end - secondsBetween(10 * MINUTE, 90 * MINUTE, ...session, "gap-after");
  if (t < start || t >= end) return;

  const user = pickOf(SIMULATED_USERS, ...session, "user").login;
  const bucket = Math.floor((t - start) / NOTEBOOK_BUCKET_MS);
  const busy = unitOf(...session, "bucket", bucket) < 0.35;
  const block = Math.floor((t - start) / (20 * MINUTE));
  const total = spec.model.memoryTotalMiB;
  const share =
    between(0.05, 0.2, ...session, "base") + between(0.1, 0.3, ...session, "growth") * (1 - 0.7 ** (block + 1));
  const target = activity[gpu]!;
  target.utilizationPct = busy ? 55 + 44 * smoothNoise(15_000, t, ...session, "util") : 0;
  target.memoryBusyRatio = 0.35;
  target.processes.push({
    pid: intBetween(10_000, 3_900_000, ...session, "pid"),
    name: "/opt/conda/bin/python",
    usedMemoryMiB: Math.round(total * share),
    user,
    command: `python -m ipykernel_launcher -f /home/${user}/.local/share/jupyter/runtime/kernel-${kernelIdOf(hexOf(32, ...session, "kernel"))}.json`,
    startedAt: start,
    container: null,
    slurmJobId: null,
  });
}

const IDLE_BOOKER_COMMANDS: readonly string[] = [
  "python serve.py --model llama-2-13b-chat --port 8000",
  "python debug_dataloader.py",
  "python -i load_model.py --ckpt /scratch/{user}/ckpt-40000.pt",
];

/** A process that holds memory at 0 % for most of a day: the booked-but-idle GPU. */
export function addIdleHeld(ctx: WorkloadContext, gpu: number): void {
  const { spec, activity, key, t } = ctx;
  const window = windowAt(t, secondsBetween(12 * HOUR, 20 * HOUR, ...key, "length"), ...key);
  const hold = [hashOf(...key, window.index)];
  const start = window.start + secondsBetween(10 * MINUTE, 90 * MINUTE, ...hold, "gap-before");
  const end = window.end - secondsBetween(30 * MINUTE, 120 * MINUTE, ...hold, "gap-after");
  if (t < start || t >= end) return;

  const user = pickOf(SIMULATED_USERS, ...hold, "user").login;
  const target = activity[gpu]!;
  target.utilizationPct = 0;
  target.processes.push({
    pid: intBetween(10_000, 3_900_000, ...hold, "pid"),
    name: "/usr/bin/python3",
    usedMemoryMiB: Math.round(spec.model.memoryTotalMiB * between(0.2, 0.7, ...hold, "memory")),
    user,
    command: pickOf(IDLE_BOOKER_COMMANDS, ...hold, "command").replace("{user}", user),
    startedAt: start,
    container: null,
    slurmJobId: null,
  });
}

/**
 * A service whose memory grows linearly from a modest base to just under the
 * board's total, where it dies and its supervisor restarts it a few minutes
 * later: the OOM risk the dashboard should flag before the crash.
 */
export function addLeak(ctx: WorkloadContext, gpu: number): void {
  const { spec, activity, key, t } = ctx;
  const window = windowAt(t, secondsBetween(90 * MINUTE, 180 * MINUTE, ...key, "length"), ...key);
  const life = [hashOf(...key, window.index)];
  const start = window.start + secondsBetween(MINUTE, 4 * MINUTE, ...life, "restart");
  if (t < start) return;

  const total = spec.model.memoryTotalMiB;
  const base = total * between(0.08, 0.15, ...life, "base");
  const peak = total * between(0.975, 0.99, ...life, "peak");
  const progress = (t - start) / (window.end - start);
  // Leaks grow in allocator-sized steps, never back: 2 MiB blocks.
  const memory = Math.floor((base + (peak - base) * progress) / 2) * 2;
  // The same service restarts under the same owner.
  const user = pickOf(SIMULATED_USERS, ...key, "user").login;
  const target = activity[gpu]!;
  target.utilizationPct = 25 + 35 * smoothNoise(30_000, t, ...life, "util") + 2 * jitterOf(t, ...life, "jitter");
  target.memoryBusyRatio = 0.5;
  target.processes.push({
    pid: intBetween(10_000, 3_900_000, ...life, "pid"),
    name: "/usr/bin/python3",
    usedMemoryMiB: memory,
    user,
    command: "python serve_embeddings.py --port 8100 --workers 2",
    startedAt: start,
    container: null,
    slurmJobId: null,
  });
}

/** A free GPU that now and then runs a short benchmark; none at all when `chance` is 0. */
export function addShortJob(ctx: WorkloadContext, gpu: number, chance: number): void {
  const { spec, activity, key, t } = ctx;
  if (chance <= 0) return;
  const length = secondsBetween(2 * HOUR, 4 * HOUR, ...key, "length");
  const window = windowAt(t, length, ...key);
  const run = [hashOf(...key, window.index)];
  if (unitOf(...run, "happens") >= chance) return;
  const duration = secondsBetween(10 * MINUTE, 45 * MINUTE, ...run, "duration");
  const start = window.start + secondsBetween(0, length - duration, ...run, "start");
  if (t < start || t >= start + duration) return;

  const user = pickOf(SIMULATED_USERS, ...run, "user").login;
  const target = activity[gpu]!;
  target.utilizationPct = 92 + 7 * smoothNoise(10_000, t, ...run, "util");
  target.memoryBusyRatio = 0.7;
  target.processes.push({
    pid: intBetween(10_000, 3_900_000, ...run, "pid"),
    name: "/usr/bin/python3",
    usedMemoryMiB: Math.round(spec.model.memoryTotalMiB * between(0.1, 0.35, ...run, "memory")),
    user,
    command: "python benchmark.py --batch-size 64 --steps 500",
    startedAt: start,
    container: null,
    slurmJobId: null,
  });
}
