import { slurmHoldName, slurmHoldOf, slurmUntil, type SlurmBlock } from "@/lib/domain/slurm";
import { formatWhen } from "@/lib/format/local-time";

/** "Slurm job 4711 of bob (running), 14:00 – 16:00": a read-only block's words, on the schedule and the week. */
export function slurmBlockLabel(block: SlurmBlock, nowMs: number): string {
  const hold = slurmHoldOf(block);
  // Without a time limit: "from …, no time limit" (or its partition's MaxTime), never an end nobody set.
  const until = block.noTimeLimit ? `from ${formatWhen(block.startsAt, nowMs)}${slurmUntil(hold, (iso) => formatWhen(iso, nowMs))}` : `${formatWhen(block.startsAt, nowMs)} – ${formatWhen(block.endsAt, nowMs)}`;
  return `${slurmHoldName(block)}${block.kind === "job" ? ` (${block.state})` : ""}, ${until}`;
}

/** The Slurm blocks that hold this unit. */
export function slurmBlocksOf(blocks: readonly SlurmBlock[], uuid: string): SlurmBlock[] {
  return blocks.filter((block) => block.gpus.some((gpu) => gpu.uuid === uuid));
}

/**
 * A block of Slurm's on gpudesk's calendar: hatched grey, never in a
 * person's colour, and read-only (no click books over it or opens it): a
 * job of Slurm's own or a reservation gpudesk did not make, held until its end.
 */
export function SlurmBlockBox({ block, nowMs, style, compact = false }: { block: SlurmBlock; nowMs: number; style: React.CSSProperties; compact?: boolean }) {
  const label = slurmBlockLabel(block, nowMs);
  return (
    <div
      data-testid="slurm-block"
      data-slurm-kind={block.kind}
      title={label}
      aria-label={label}
      onClick={(event) => event.stopPropagation()}
      onPointerDown={(event) => event.stopPropagation()}
      className="absolute z-[2] cursor-not-allowed overflow-hidden rounded-md border border-slate-500 bg-[repeating-linear-gradient(135deg,#cbd5e1_0_6px,#e2e8f0_6px_12px)] px-1.5 text-xs font-medium whitespace-nowrap text-slate-800 dark:border-slate-400 dark:bg-[repeating-linear-gradient(135deg,#334155_0_6px,#1e293b_6px_12px)] dark:text-slate-100"
      style={style}
    >
      {compact ? (block.kind === "job" ? `job ${block.id}` : block.id) : slurmHoldName(block)}
      {block.noTimeLimit && !compact && " · no time limit"}
    </div>
  );
}
