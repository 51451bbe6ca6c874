import { memo } from "react";
import { processEvidenceLabel, type GpuReconciliation, type ProcessAttribution } from "@/lib/domain/attribution";
import { personName } from "@/lib/format/person-name";

export interface Runner {
  name: string;
  via: string;
  intruder: boolean;
  pids: number[];
}

/** One line per person (and evidence): a job of eight ranks is one runner, not eight. */
export function runners(processes: ProcessAttribution[]): Runner[] {
  const byKey = new Map<string, Runner>();
  for (const process of processes) {
    // The person as every page shows people; a process nobody can be named for, by its login.
    const name = process.runner ? personName(process.runner) : (process.login ?? "unknown");
    const via = processEvidenceLabel(process);
    const key = `${name}\u0000${via}\u0000${process.intruder}`;
    const runner = byKey.get(key);
    if (runner) runner.pids.push(process.pid);
    else byKey.set(key, { name, via, intruder: process.intruder, pids: [process.pid] });
  }
  return [...byKey.values()].sort((a, b) => Number(b.intruder) - Number(a.intruder));
}

/**
 * Who really runs on a GPU, with the evidence next to each name ("alice ·
 * via container 3f2a1b9c…"); someone other than the booker is marked.
 */
export const GpuAttribution = memo(function GpuAttribution({ reconciliation, limit = 3 }: { reconciliation: GpuReconciliation; limit?: number }) {
  const list = runners(reconciliation.processes);
  if (list.length === 0) return null;
  const shown = list.slice(0, limit);
  return (
    <ul aria-label="Who runs here" data-testid="gpu-attribution" className="space-y-0.5 text-xs">
      {shown.map((runner) => (
        <li
          key={`${runner.name}-${runner.via}-${runner.intruder}`}
          data-intruder={runner.intruder || undefined}
          title={`PID ${runner.pids.join(", ")}`}
          className="flex min-w-0 items-baseline gap-1.5"
        >
          {runner.intruder && (
            <span className="shrink-0 font-semibold text-red-700 dark:text-red-300">
              Not the booker<span className="sr-only">:</span>
            </span>
          )}
          <span className="truncate">
            <span className="font-medium">{runner.name}</span>
            <span className="text-slate-500 dark:text-slate-400"> · {runner.via}</span>
          </span>
        </li>
      ))}
      {list.length > shown.length && <li className="text-slate-500 dark:text-slate-400">+{list.length - shown.length} more</li>}
    </ul>
  );
});
