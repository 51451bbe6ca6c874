import { HOUR, MINUTE, usedMemoryOf, type GpuActivity, type WorkloadContext } from "./activity";
import type { SimulatedSlot } from "./fleet";
import {
  between,
  hashOf,
  hexOf,
  intBetween,
  jitterOf,
  pickOf,
  secondsBetween,
  smoothNoise,
  windowAt,
  type HashPart,
} from "./hash";
import { SIMULATED_USERS } from "./models";

type TrainingSlot = Extract<SimulatedSlot, { role: "training" }>;

interface TrainingRecipe {
  script: string;
  /** Steady memory per rank as a share of the board's total. */
  memory: readonly [number, number];
  memoryBusyRatio: number;
}

const TRAINING_RECIPES: readonly TrainingRecipe[] = [
  { script: "train.py --config llama-7b.yaml", memory: [0.8, 0.93], memoryBusyRatio: 0.55 },
  { script: "train.py --config mistral-7b-sft.yaml --bf16", memory: [0.78, 0.92], memoryBusyRatio: 0.5 },
  { script: "finetune.py --model llama-13b --lora-rank 16", memory: [0.7, 0.9], memoryBusyRatio: 0.45 },
  { script: "pretrain_gpt.py --num-layers 24 --hidden-size 2048", memory: [0.6, 0.85], memoryBusyRatio: 0.6 },
  { script: "train_resnet.py --arch resnet50 --batch-size 256 --amp", memory: [0.45, 0.7], memoryBusyRatio: 0.4 },
  { script: "train_diffusion.py --config sdxl-finetune.yaml", memory: [0.65, 0.9], memoryBusyRatio: 0.45 },
];

const SQUATTER_SCRIPTS: readonly string[] = [
  "eval.py --ckpt /scratch/{user}/runs/last.pt",
  "quick_test.py --device cuda",
  "profile_kernels.py --iters 1000",
];

/**
 * A multi-GPU job set, one rank per GPU: 85–99 % utilization, steady high
 * memory after a short warm-up, and a gap between one job and the next. With
 * `squatterGpu`, another user's process joins one GPU of the set while it runs.
 */
export function addTraining(ctx: WorkloadContext, slot: TrainingSlot): void {
  const { spec, activity, key, t } = ctx;
  const window = windowAt(t, secondsBetween(6 * HOUR, 14 * HOUR, ...key, "length"), ...key);
  const job = [hashOf(...key, window.index)];
  const start = window.start + secondsBetween(3 * MINUTE, 45 * MINUTE, ...job, "gap-before");
  const end = window.end - secondsBetween(5 * MINUTE, 60 * MINUTE, ...job, "gap-after");
  if (t < start || t >= end) return;

  const user = pickOf(SIMULATED_USERS, ...job, "user").login;
  const recipe = pickOf(TRAINING_RECIPES, ...job, "recipe");
  const total = spec.model.memoryTotalMiB;
  const steadyMemory = total * between(recipe.memory[0], recipe.memory[1], ...job, "memory");
  // Loading weights and building the optimizer state takes a few minutes, at
  // low utilization, before the steady state.
  const warmup = Math.min(1, (t - start) / secondsBetween(2 * MINUTE, 4 * MINUTE, ...job, "warmup"));
  // Ranks run in lockstep (every step ends in an all-reduce), so they share
  // one slow wander and differ only by per-second jitter.
  const shared = smoothNoise(20_000, t, ...job, "util");
  const pidBase = intBetween(10_000, 3_900_000, ...job, "pid");
  const launch = launchOf(slot.launcher, user, job, window.index);

  slot.gpus.forEach((gpu, rank) => {
    const jitter = jitterOf(t, ...job, "rank", rank);
    const utilization = warmup < 1 ? 20 + 12 * jitter : 86 + 11 * shared + jitter;
    // Rank 0 also stages checkpoints and logs, so it holds a little more.
    const rankMemory = steadyMemory * (rank === 0 ? 1.015 : 1);
    const wobble = 24 * (smoothNoise(30_000, t, ...job, "mem", rank) * 2 - 1);
    const memory = Math.min(total - 1024, Math.max(0, warmup * rankMemory + wobble));
    const target = activity[gpu]!;
    target.utilizationPct = utilization;
    target.memoryBusyRatio = recipe.memoryBusyRatio;
    target.processes.push({
      pid: pidBase + rank,
      name: launch.executable,
      usedMemoryMiB: Math.round(memory),
      user,
      command: `python ${recipe.script}`,
      startedAt: start,
      container: launch.container,
      slurmJobId: launch.slurmJobId,
    });
  });

  if (slot.squatterGpu !== null && slot.gpus.includes(slot.squatterGpu)) {
    addSquatter(ctx, activity[slot.squatterGpu]!, user, start, end);
  }
}

function launchOf(launcher: TrainingSlot["launcher"], user: string, job: readonly HashPart[], windowIndex: number) {
  switch (launcher) {
    case "docker":
      return { executable: "/opt/conda/bin/python", container: hexOf(12, ...job, "container"), slurmJobId: null };
    case "slurm":
      // Slurm ids grow with time, so later jobs get larger ids, as they do on a real cluster.
      return {
        executable: `/home/${user}/miniconda3/envs/train/bin/python`,
        container: null,
        slurmJobId: String(100_000 + ((windowIndex * 17 + intBetween(0, 16, ...job, "slurm")) % 9_000_000)),
      };
    case "plain":
      return { executable: "/usr/bin/python3", container: null, slurmJobId: null };
  }
}

/**
 * Another user's process on one GPU of the set: it slips in once the job has
 * been running a while (the GPU looks busy but "surely has room") and leaves
 * by the time the job ends.
 */
function addSquatter(ctx: WorkloadContext, target: GpuActivity, jobUser: string, jobStart: number, jobEnd: number) {
  const { spec, key, t } = ctx;
  const squatKey = [...key, "squatter"];
  const window = windowAt(t, secondsBetween(90 * MINUTE, 150 * MINUTE, ...squatKey, "length"), ...squatKey);
  const segment = [hashOf(...squatKey, window.index)];
  const start = Math.max(
    window.start + secondsBetween(0, 15 * MINUTE, ...segment, "gap-before"),
    jobStart + 10 * MINUTE,
  );
  const end = Math.min(window.end - secondsBetween(MINUTE, 10 * MINUTE, ...segment, "gap-after"), jobEnd);
  if (t < start || t >= end) return;

  // The start is part of the identity: a segment cut in two by a new job is two processes.
  const identity = [hashOf(...segment, start)];
  const others = SIMULATED_USERS.filter((u) => u.login !== jobUser);
  const user = pickOf(others, ...identity, "user").login;
  const total = spec.model.memoryTotalMiB;
  const room = total - 1024 - usedMemoryOf(target);
  const memory = Math.max(256, Math.min(total * between(0.05, 0.14, ...identity, "memory"), room));
  target.utilizationPct = Math.min(100, target.utilizationPct + 3 + 9 * smoothNoise(15_000, t, ...identity));
  target.processes.push({
    pid: intBetween(10_000, 3_900_000, ...identity, "pid"),
    name: "/usr/bin/python3",
    usedMemoryMiB: Math.round(memory),
    user,
    command: `python ${pickOf(SQUATTER_SCRIPTS, ...identity, "script").replace("{user}", user)}`,
    startedAt: start,
    container: null,
    slurmJobId: null,
  });
}
