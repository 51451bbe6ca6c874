import { memo } from "react";
import type { ProcessInfo } from "@/lib/domain/snapshot";
import { DASH, formatMemory } from "@/lib/format/format";
import { sameProcessRows } from "@/components/gpu/card-props";

/** Cards have room for a few; the detail page lists them all. */
const MAX_SHOWN = 4;

/**
 * The processes on one GPU, compact enough for a card. The command is cut to
 * one line; a tap on it shows it whole, which also works on phones, where a
 * `title` tooltip never appears. A native <details> with only a summary does
 * this without script: opening it unwraps the summary's text.
 */
export const ProcessList = memo(function ProcessList({ processes, stale = false, unseen = false }: { processes: ProcessInfo[]; stale?: boolean; unseen?: boolean }) {
  if (processes.length === 0) {
    // In use with none listed: say where the job is, so that "No processes" does not read as idle.
    return unseen ? (
      <p data-testid="gpu-unseen" className="text-sm text-amber-800 dark:text-amber-300">
        No process visible: a job in another container or PID namespace holds it
      </p>
    ) : (
      <p className="text-sm text-slate-500 dark:text-slate-400">No processes</p>
    );
  }
  const shown = [...processes].sort((a, b) => (b.usedMemoryMiB ?? 0) - (a.usedMemoryMiB ?? 0)).slice(0, MAX_SHOWN);
  const hidden = processes.length - shown.length;

  return (
    <ul aria-label="Processes" className={`space-y-1.5 text-sm ${stale ? "opacity-70" : ""}`}>
      {shown.map((process) => {
        const command = process.command ?? process.name;
        return (
          <li key={process.pid} className="min-w-0">
            <div className="flex items-baseline gap-2">
              <span className="truncate font-medium" title={process.user ?? undefined}>
                {process.user ?? DASH}
              </span>
              <span className="shrink-0 font-mono text-xs text-slate-500 dark:text-slate-400">
                <span className="sr-only">PID </span>
                {process.pid}
              </span>
              <span className="ml-auto shrink-0 tabular-nums text-slate-600 dark:text-slate-300">
                {formatMemory(process.usedMemoryMiB)}
              </span>
            </div>
            <details className="group relative z-10 min-w-0">
              <summary
                title={command}
                className="cursor-pointer list-none truncate rounded font-mono text-xs text-slate-500 group-open:whitespace-normal group-open:break-all group-open:text-slate-800 hover:text-slate-800 focus-visible:outline-2 focus-visible:outline-sky-500 dark:text-slate-400 dark:group-open:text-slate-100 dark:hover:text-slate-100 [&::-webkit-details-marker]:hidden"
              >
                {command}
              </summary>
            </details>
          </li>
        );
      })}
      {hidden > 0 && (
        <li className="text-xs text-slate-500 dark:text-slate-400">
          +{hidden} more {hidden === 1 ? "process" : "processes"}
        </li>
      )}
    </ul>
  );
}, (prev, next) => prev.stale === next.stale && prev.unseen === next.unseen && sameProcessRows(prev.processes, next.processes));
