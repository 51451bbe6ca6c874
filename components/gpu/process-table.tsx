import type { ProcessInfo } from "@/lib/domain/snapshot";
import { DASH, formatDateTime, formatMemory } from "@/lib/format/format";

/**
 * Every process on the GPU. On a phone the table becomes one block per
 * process (the header row hides and each cell names itself), because a
 * five-column table does not fit in 390 px without scrolling sideways.
 */
export function ProcessTable({ processes, stale, unseen = null }: { processes: ProcessInfo[]; stale: boolean; unseen?: string | null }) {
  if (processes.length === 0 && unseen) {
    return (
      <p data-testid="gpu-unseen" className="rounded-xl border border-dashed border-amber-400 p-4 text-sm text-amber-900 dark:border-amber-700 dark:text-amber-200">
        In use — {unseen}. nvidia-smi lists no process: the job runs in another container or PID namespace (or a vGPU guest), but its memory and load are real.
      </p>
    );
  }
  if (processes.length === 0) {
    return (
      <p className="rounded-xl border border-dashed border-slate-300 p-4 text-sm text-slate-500 dark:border-slate-700 dark:text-slate-400">
        No processes on this GPU{stale ? " when it was last seen" : ""}.
      </p>
    );
  }
  const sorted = [...processes].sort((a, b) => (b.usedMemoryMiB ?? 0) - (a.usedMemoryMiB ?? 0));

  return (
    <div className="overflow-hidden rounded-xl border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
      <table className={`w-full text-sm ${stale ? "opacity-70" : ""}`}>
        <caption className="sr-only">Processes on this GPU{stale ? " (last known)" : ""}</caption>
        <thead className="hidden bg-slate-50 text-left text-xs text-slate-500 md:table-header-group dark:bg-slate-800/60 dark:text-slate-400">
          <tr>
            <th scope="col" className="px-4 py-2 font-medium">User</th>
            <th scope="col" className="px-4 py-2 font-medium">PID</th>
            <th scope="col" className="px-4 py-2 font-medium">Command</th>
            <th scope="col" className="px-4 py-2 text-right font-medium">Memory</th>
            <th scope="col" className="px-4 py-2 font-medium">Started</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {sorted.map((process) => (
            <tr key={process.pid} className="grid grid-cols-[auto_1fr_auto] gap-x-3 px-4 py-3 md:table-row md:p-0">
              <Cell label="User" className="font-medium">{process.user ?? DASH}</Cell>
              <Cell label="PID" className="font-mono text-xs text-slate-500 md:whitespace-nowrap dark:text-slate-400">{process.pid}</Cell>
              <Cell label="Command" className="col-span-3 row-start-2 font-mono text-xs break-all md:max-w-0 md:w-full">
                {process.command ?? process.name}
              </Cell>
              <Cell label="Memory" className="col-start-3 row-start-1 text-right whitespace-nowrap tabular-nums">{formatMemory(process.usedMemoryMiB)}</Cell>
              <Cell label="Started" className="col-span-3 text-xs text-slate-500 md:text-sm md:whitespace-nowrap dark:text-slate-400">
                {process.startedAt ? <time dateTime={process.startedAt}>{formatDateTime(process.startedAt)}</time> : DASH}
              </Cell>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Cell({ label, className = "", children }: { label: string; className?: string; children: React.ReactNode }) {
  return (
    <td className={`md:px-4 md:py-2.5 md:align-baseline ${className}`}>
      <span className="sr-only md:hidden">{label}: </span>
      {children}
    </td>
  );
}
