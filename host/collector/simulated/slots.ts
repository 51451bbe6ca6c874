/**
 * How a group of GPUs on a simulated host is used over time. The role is fixed
 * per host; who runs what, and when, changes with the seeded schedule.
 */
export type SimulatedSlot =
  | {
      role: "training";
      /** GPU indices of one multi-GPU job set, one rank per GPU. */
      gpus: number[];
      launcher: "plain" | "docker" | "slurm";
      /** A GPU of this set on which another user's process shows up; null for none. */
      squatterGpu: number | null;
    }
  /** A Jupyter kernel: bursts of work between long pauses. */
  | { role: "notebook"; gpus: [number] }
  /** A process that holds memory at 0 % utilization for hours. */
  | { role: "idle-held"; gpus: [number] }
  /** A service whose memory grows until the GPU is nearly full, then restarts. */
  | { role: "leak"; gpus: [number] }
  /** Nobody, or now and then a short benchmark (`shortJobChance` per window). */
  | { role: "free"; gpus: [number]; shortJobChance: number };
