"use client";

import type { LaunchSettings } from "@/lib/domain/launch-settings";
import { CopyButton } from "@/components/ui/copy-button";
import type { SlurmBookingView } from "@/lib/domain/slurm";

interface Line {
  label: string;
  /** Ends the copy button's name: "Copy export line". */
  what: string;
  text: string;
  multiline?: boolean;
}

/** The exact lines to start a job on the booked GPUs, each with its copy button. */
export function LaunchSettingsPanel({ launch, slurm }: { launch: LaunchSettings; slurm?: SlurmBookingView | null }) {
  const lines: Line[] = [...slurmLines(launch), ...(launch.node ? nodeLines(launch.node) : oneHostLines(launch))];
  return (
    <div className="space-y-3" data-testid="launch-settings">
      {slurm && <SlurmState slurm={slurm} />}
      {lines.map((line) => (
        <div key={line.label} className="min-w-0">
          <div className="mb-1 flex items-center justify-between gap-2">
            <span className="text-xs font-medium text-slate-600 dark:text-slate-400">{line.label}</span>
            <CopyButton text={line.text} name={`Copy ${line.what}`} />
          </div>
          <pre
            className={`overflow-x-auto rounded-md bg-slate-900 px-3 py-2 font-mono text-xs leading-5 text-slate-100 dark:bg-slate-950 ${line.multiline ? "" : "whitespace-pre"}`}
          >
            <code>{line.text}</code>
          </pre>
        </div>
      ))}
      {launch.node ? (
        <p className="text-xs text-slate-600 dark:text-slate-400">
          Node {launch.node.nodeRank + 1} of {launch.node.nodeCount}: {launch.node.worldSize} processes in all, one per GPU, meeting at {launch.node.masterAddr}:
          {launch.node.masterPort}. Or run <code>gpudesk run --booking &lt;id&gt; -- python train.py</code> on each node: it sets this node&apos;s environment.
        </p>
      ) : (
        <p className="text-xs text-slate-600 dark:text-slate-400">
          {launch.frameworks.pytorch} {launch.frameworks.tensorflow} Inside a container started with <code>--gpus</code>, leave
          CUDA_VISIBLE_DEVICES unset: the container only sees the booked GPUs.
        </p>
      )}
    </div>
  );
}

/** One node of a booking across nodes: its environment, rank and rendezvous. */
function nodeLines(node: NonNullable<LaunchSettings["node"]>): Line[] {
  return [
    { label: "This node's environment (rank, rendezvous, GPUs)", what: "node export line", text: node.exportLine },
    { label: "torchrun on this node", what: "node torchrun line", text: node.torchrun },
    ...(node.nccl ? [{ label: "NCCL (from the host's fabric)", what: "NCCL line", text: node.nccl }] : []),
    { label: "docker run on this node", what: "node docker run line", text: node.docker },
    { label: "mpirun, once from node 1", what: "mpirun line", text: node.mpirun },
  ];
}

function oneHostLines(launch: LaunchSettings): Line[] {
  return [
    ...(launch.slices
      ? // A MIG slice has no index CUDA takes: its MIG UUID, one line per slice (a process sees one MIG device).
        [{ label: "Shell (MIG UUID, one line per slice)", what: "export line", text: launch.exportUuids, multiline: launch.slices.length > 1 }]
      : [
          { label: "Shell (indices as nvidia-smi shows them)", what: "export line", text: launch.exportIndices },
          { label: "Shell (GPU UUIDs, safe across reboots)", what: "export line with UUIDs", text: launch.exportUuids },
        ]),
    ...(launch.exportReservation
      ? [{ label: "Prove your processes run on this booking (yours alone: do not share it)", what: "booking tag", text: launch.exportReservation }]
      : []),
    { label: "torchrun", what: "torchrun line", text: launch.torchrun },
    { label: "docker run", what: "docker run line", text: launch.docker },
    { label: "docker compose", what: "compose block", text: launch.compose, multiline: true },
  ];
}

/** On Slurm nodes: the batch and interactive lines first, naming the reservation; Slurm picks the GPUs and sets CUDA_VISIBLE_DEVICES. */
function slurmLines(launch: LaunchSettings): Line[] {
  if (!launch.sbatch) return [];
  return [
    { label: "Slurm batch job (Slurm picks the GPUs and sets CUDA_VISIBLE_DEVICES)", what: "sbatch line", text: launch.sbatch },
    ...(launch.srun ? [{ label: "Slurm interactive shell", what: "srun line", text: launch.srun }] : []),
  ];
}

/** The booking's Slurm reservation: held or missing (with the reason), and the GPUs Slurm gave each job of the booker running under it. */
function SlurmState({ slurm }: { slurm: SlurmBookingView }) {
  return (
    <div data-testid="slurm-state" className={`rounded-md px-3 py-2 text-xs ${slurm.state === "held" ? "bg-sky-50 text-sky-900 dark:bg-sky-950 dark:text-sky-100" : "bg-amber-50 text-amber-900 dark:bg-amber-950 dark:text-amber-100"}`}>
      <p>
        Slurm reservation <code>{slurm.reservation}</code>: {slurm.state === "held" ? "held by Slurm" : "missing"}
        {slurm.message ? ` — ${slurm.message}` : ""}
      </p>
      {slurm.jobs?.map((job) => (
        <p key={`${job.id}-${job.host}`} data-testid="slurm-job">
          Job {job.id} of {job.user} runs on {job.host}, {job.gpuIndices.length === 1 ? "GPU" : "GPUs"} {job.gpuIndices.join(", ") || "(not reported)"} as Slurm gave them
        </p>
      ))}
    </div>
  );
}
