import { memo } from "react";
import { GPU_STATE_LABELS, type GpuState } from "@/lib/domain/attribution";
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

/** A GPU's reconciled state, as a badge; `problem` adds the reason of an error, `unseen` says the use has no visible process. */
export const GpuStateBadge = memo(function GpuStateBadge({ state, problem, unseen = false }: { state: GpuState; problem?: string | null; unseen?: boolean }) {
  return (
    <span data-testid="gpu-state" data-state={state} data-unseen={unseen || undefined} className="inline-flex">
      <Badge tone={TONE[state]} title={problem ?? (unseen ? UNSEEN_HINT : HINT[state])}>
        {GPU_STATE_LABELS[state]}
      </Badge>
    </span>
  );
});
