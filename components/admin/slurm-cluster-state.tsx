import type { SlurmClusterView } from "@/server/slurm/slurm-connection";
import { slurmUnplannedSentence } from "@/lib/domain/slurm";
import { Badge } from "@/components/ui/badge";
import { TimeAgo } from "@/components/ui/time-ago";

const STATE_WORDS: Record<SlurmClusterView["state"], { tone: "free" | "danger"; label: string; consequence: string }> = {
  up: { tone: "free", label: "answering", consequence: "" },
  down: { tone: "danger", label: "not answering", consequence: "Bookings on Slurm nodes are refused until it answers; the rest of gpudesk works." },
  refused: { tone: "danger", label: "refusing gpudesk", consequence: "Bookings on Slurm nodes are refused until it serves gpudesk again; the rest of gpudesk works." },
};

/**
 * Slurm underneath, on Admin → Hosts (the view /api/health shows too): up,
 * down or refused with the reason, which Slurm and API, the last pass, its
 * nodes that are gpudesk hosts and those that are not, and the pending jobs
 * the calendar cannot place (no node known).
 */
export function SlurmClusterState({ view }: { view: SlurmClusterView }) {
  const words = STATE_WORDS[view.state];
  const unplanned = slurmUnplannedSentence(view.unplanned);
  return (
    <section aria-labelledby="slurm-heading" data-testid="slurm-cluster" data-state={view.state} className="mb-6 rounded border border-slate-200 p-3 text-sm dark:border-slate-800">
      <h2 id="slurm-heading" className="flex items-center gap-2 font-semibold">
        Slurm <Badge tone={words.tone}>{words.label}</Badge>
      </h2>
      <p className="mt-1 text-slate-700 dark:text-slate-300">
        {view.version ? `Slurm ${view.version} (API ${view.api})` : "Slurm"} at <span className="font-mono">{view.url}</span> · last pass <TimeAgo iso={view.lastPass} />
      </p>
      {view.state !== "up" && (
        <p role="alert" className="mt-1 text-red-700 dark:text-red-400">
          {view.message ?? "Not asked yet"}. {words.consequence}
        </p>
      )}
      <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 text-slate-700 dark:text-slate-300">
        <dt>Nodes on gpudesk hosts</dt>
        <dd data-testid="slurm-mapped">
          {view.nodes.mapped.length === 0 ? "none" : view.nodes.mapped.map((entry) => (entry.node === entry.host ? entry.node : `${entry.node} (${entry.host})`)).join(", ")}
        </dd>
        <dt>Nodes with no gpudesk host</dt>
        <dd data-testid="slurm-unmapped" className={view.nodes.unmapped.length > 0 ? "text-amber-700 dark:text-amber-400" : undefined}>
          {view.nodes.unmapped.length === 0 ? "none" : view.nodes.unmapped.join(", ")}
        </dd>
      </dl>
      {unplanned && (
        <p data-testid="slurm-unplanned" className="mt-1 text-slate-700 dark:text-slate-300">
          {unplanned}: not on any GPU of the calendar until Slurm plans them.
        </p>
      )}
      <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">A booking on a Slurm node is a Slurm reservation for the booker&apos;s Unix login; Slurm&apos;s jobs show on the calendar.</p>
    </section>
  );
}
