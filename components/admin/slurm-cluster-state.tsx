import type { SlurmClusterState as State } from "@/server/slurm/slurm-connection";
import { Badge } from "@/components/ui/badge";

/** Slurm underneath, on Admin → Hosts: up or down, which Slurm, its nodes, and why not when it does not answer. */
export function SlurmClusterState({ status }: { status: State }) {
  const up = status.state === "up";
  return (
    <section aria-labelledby="slurm-heading" className="mb-6 rounded border border-slate-200 p-3 text-sm dark:border-slate-800">
      <h2 id="slurm-heading" className="flex items-center gap-2 font-semibold">
        Slurm <Badge tone={up ? "free" : "danger"}>{up ? "answering" : "not answering"}</Badge>
      </h2>
      <p className="mt-1 text-slate-700 dark:text-slate-300">
        {status.version ? `Slurm ${status.version.release} (API ${status.version.api})` : "Slurm"} at <span className="font-mono">{status.url}</span>
        {status.nodes.length > 0 && (
          <>
            {" "}
            · {status.nodes.length} nodes: <span className="font-mono">{status.nodes.join(", ")}</span>
          </>
        )}
      </p>
      {!up && (
        <p role="alert" className="mt-1 text-red-700 dark:text-red-400">
          {status.message ?? "Not asked yet"}. Bookings on Slurm nodes are refused until it answers; the rest of gpudesk works.
        </p>
      )}
      <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">A booking on a Slurm node is a Slurm reservation for the booker&apos;s Unix login; Slurm&apos;s jobs show on the calendar.</p>
    </section>
  );
}
