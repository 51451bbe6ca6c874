import Link from "next/link";
import { processEvidenceLabel, type GpuReconciliation } from "@/lib/domain/attribution";
import { DASH } from "@/lib/format/format";
import { unseenUsePhrase } from "@/lib/domain/gpu-availability";
import { personName } from "@/lib/format/person-name";
import { slurmHoldSentence } from "@/lib/domain/slurm";
import { formatWhen } from "@/lib/format/local-time";
import { GpuStateBadge } from "@/components/alerts/gpu-state-badge";
import * as t from "@/components/ui/table-styles";

/**
 * The GPU page's account of who really runs on the GPU: its state, the
 * booking's booker, and each process with the person it was attributed to
 * and the evidence (booking, job, container, login).
 */
export function GpuWhoRuns({ reconciliation, nowMs }: { reconciliation: GpuReconciliation; nowMs: number }) {
  const { bookedBy, processes } = reconciliation;
  return (
    <div className="space-y-3" data-testid="gpu-who-runs">
      <p className="flex flex-wrap items-center gap-2 text-sm">
        <GpuStateBadge state={reconciliation.state} problem={reconciliation.problem} unseen={Boolean(reconciliation.unseenUse)} slurm={reconciliation.slurm} />
        {bookedBy ? (
          <span>
            Booked by <span className="font-medium">{personName(bookedBy)}</span>
          </span>
        ) : (
          <span className="text-slate-500 dark:text-slate-400">Not booked now</span>
        )}
        {reconciliation.problem && <span className="text-red-700 dark:text-red-300">{reconciliation.problem}</span>}
        {reconciliation.slurm && <span data-testid="gpu-slurm">{slurmHoldSentence(reconciliation.slurm, (iso) => formatWhen(iso, nowMs))}</span>}
        {reconciliation.unseenUse && (
          <span className="text-amber-800 dark:text-amber-300">In use — {unseenUsePhrase(reconciliation.unseenUse.memoryMiB)}: nobody can be named</span>
        )}
        {(reconciliation.state === "conflict" || reconciliation.state === "error") && (
          <Link href="/alerts" className="text-sky-700 hover:underline dark:text-sky-400">
            See alerts
          </Link>
        )}
      </p>
      {processes.length > 0 && (
        <div className={t.tableCard}>
          <table className={`${t.table} min-w-[36rem]`} aria-label="Who runs here">
            <thead>
              <tr className={t.headRow}>
                <th scope="col" className={t.th}>PID</th>
                <th scope="col" className={t.th}>Person</th>
                <th scope="col" className={t.th}>Evidence</th>
                <th scope="col" className={t.th}>Login</th>
                <th scope="col" className={t.th}>Booker?</th>
              </tr>
            </thead>
            <tbody>
              {processes.map((process) => (
                <tr key={process.pid} className={t.bodyRow} data-intruder={process.intruder || undefined}>
                  <td className={`${t.td} font-mono text-xs`}>{process.pid}</td>
                  <td className={`${t.td} font-medium`}>{process.runner ? personName(process.runner) : <span className="text-slate-500 dark:text-slate-400">unknown</span>}</td>
                  <td className={t.td} title={process.evidence.value ?? undefined}>
                    {processEvidenceLabel(process)}
                  </td>
                  <td className={`${t.td} font-mono text-xs`}>{process.login ?? DASH}</td>
                  <td className={t.td}>
                    {!bookedBy ? (
                      <span className="text-slate-500 dark:text-slate-400">{DASH}</span>
                    ) : process.intruder ? (
                      <span className="font-semibold text-red-700 dark:text-red-300">No</span>
                    ) : (
                      "Yes"
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
