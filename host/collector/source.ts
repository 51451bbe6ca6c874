import type { Snapshot } from "@/lib/domain/snapshot";

/**
 * Where an agent's readings come from. A source reports GPUs and the
 * processes on them; ownership fields that only /proc can answer (user,
 * command, cgroup, environment) may be null here and are filled in by the
 * collector afterwards.
 */
export interface GpuSource {
  readonly kind: "nvidia-smi" | "simulated";
  /** One reading of the host, stamped with the time it was taken. */
  read(): Promise<Snapshot>;
  /** The host's `nvidia-smi topo -m` text (GPU-to-GPU links); null when it cannot be had. Asked once, at start. */
  readTopology(): Promise<string | null>;
  /** Stops child processes and timers; the source is unusable afterwards. */
  close(): Promise<void>;
  /**
   * Calls `listener` each time the source has a new reading to give (nvidia-smi
   * printed its next tick), so that the agent reads then instead of on its own
   * clock; answers how to stop listening. Absent where readings are made on
   * demand (the simulated source, nvidia-smi spawned per read).
   */
  onTick?(listener: () => void): () => void;
}
