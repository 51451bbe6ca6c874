import type { Snapshot } from "@/lib/snapshot";

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
}
