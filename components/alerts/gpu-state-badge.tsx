import { memo } from "react";
import { gpuStateLabel, type GpuState } from "@/lib/domain/attribution";
import type { SlurmHoldNow } from "@/lib/domain/slurm";
import { formatWhen } from "@/lib/format/local-time";
import { Badge } from "@/components/ui/badge";

const TONE = {
  free: "free",
  booked_idle: "neutral",
  booked_in_use: "busy",
  unbooked_use: "busy",
  conflict: "danger",
  error: "danger",
  offline: "offline",
  partitioned: "neutral",
} as const satisfies Record<GpuState, Parameters<typeof Badge>[0]["tone"]>;

const HINT: Record<GpuState, string> = {
  free: "Nobody booked it and nothing runs on it",
  booked_idle: "Booked, and nothing runs on it",
  booked_in_use: "Booked, and only the booker's processes run on it",
  unbooked_use: "Processes run on it, but nobody booked it",
  conflict: "Someone other than the booker runs on it",
  error: "The GPU reports a fault",
  offline: "Its host's agent is silent: these are the last known values",
  partitioned: "Split into MIG slices: its slices are booked, each with a state of its own",
};

/** The hint of a GPU in use with no visible process (lib/domain/gpu-availability.ts, `detectUnseenUse`). */
const UNSEEN_HINT = "Memory is held or it is busy, but no process is visible: a job in another container or PID namespace, or a vGPU guest";

/** The hint of a unit Slurm holds (its own job, a reservation gpudesk did not make). */
const SLURM_HINT = "Slurm holds it (a job of its own or a reservation gpudesk did not make): nobody can book it until Slurm lets go";

/**
 * A GPU's reconciled state, as a badge; `problem` adds the reason of an error, `unseen` says the use has no visible process,
 * `slurm` names Slurm's hold in the state's place ("Held by Slurm (job 42 of bob)"), a reservation's end in the viewer's time at `nowMs`.
 */
export const GpuStateBadge = memo(function GpuStateBadge({
  state,
  problem,
  unseen = false,
  slurm = null,
  nowMs,
}: {
  state: GpuState;
  problem?: string | null;
  unseen?: boolean;
  slurm?: SlurmHoldNow | null;
  nowMs?: number;
}) {
  const label = gpuStateLabel({ state, slurm }, nowMs === undefined ? undefined : (iso) => formatWhen(iso, nowMs));
  const bySlurm = state === "unbooked_use" && slurm && slurm.kind !== "booked-job";
  return (
    <span data-testid="gpu-state" data-state={state} data-unseen={unseen || undefined} data-slurm={bySlurm ? slurm.kind : undefined} className="inline-flex">
      <Badge tone={TONE[state]} title={problem ?? (bySlurm ? SLURM_HINT : unseen ? UNSEEN_HINT : HINT[state])}>
        {label}
      </Badge>
    </span>
  );
});
