"use client";

import Link from "next/link";
import { memo, useRef } from "react";
import { isGpuFreeFor } from "@/lib/domain/gpu-availability";
import { gpuStateNow } from "@/lib/live/gpu-state-now";
import { formatGiB } from "@/lib/format/format";
import { formatWhen } from "@/lib/format/local-time";
import { personName } from "@/lib/format/person-name";
import { useGpuReconciliation } from "@/components/live/use-gpu-states";
import { useContentSkipped } from "@/components/live/use-content-skipped";
import { useOptionalCurrentUser } from "@/components/auth/current-user";
import { GpuStateBadge } from "@/components/alerts/gpu-state-badge";
import { runners } from "@/components/alerts/gpu-attribution";
import { bookLinkKind, sameCardContext, type CardContext } from "@/components/gpu/card-props";
import { BookLink } from "@/components/gpu/gpu-booking";
import { isMig } from "@/components/gpu/utilization-value";
import { useShownReadings } from "@/components/fleet/fleet-card";

interface FleetRowProps extends CardContext {
  uuid: string;
  phase: number;
}

const cell = "px-2 py-1.5 align-middle sm:px-3";

/**
 * One GPU as a row of the dense view: state, utilization, memory, who
 * holds the booking, who runs and until when. Takes its readings from the
 * store as a card does (components/fleet/fleet-card.tsx), rows far off
 * screen in turns.
 */
export const FleetRow = memo(
  function FleetRow({ uuid, phase, stale, nowMs, booking, people = [] }: FleetRowProps) {
    const ref = useRef<HTMLTableRowElement>(null);
    const skipped = useContentSkipped(ref);
    const shown = useShownReadings(uuid, skipped, phase);
    const reconciliation = useGpuReconciliation(uuid);
    const viewer = useOptionalCurrentUser();
    if (!shown) return null;
    const { gpu } = shown;
    const current = booking?.current ?? null;
    const state = gpuStateNow(gpu, !stale, current, reconciliation);
    const mine = Boolean(viewer && reconciliation && state === "unbooked_use" && isGpuFreeFor(reconciliation, viewer.id));
    const running = reconciliation ? runners(reconciliation.processes) : [...new Set(gpu.processes.map((process) => process.user ?? "unknown"))].map((name) => ({ name, intruder: false }));
    const label = `GPU ${gpu.index} on ${gpu.hostName}`;
    const bookedBy = current ? personName(current.bookedBy, people) : null;
    const memoryPct = gpu.memoryTotalMiB && gpu.memoryUsedMiB !== null ? Math.round((100 * gpu.memoryUsedMiB) / gpu.memoryTotalMiB) : null;

    return (
      <tr ref={ref} aria-label={label} data-testid="fleet-row" data-uuid={uuid} data-state={state} className="border-b border-slate-100 last:border-0 [contain-intrinsic-size:auto_2.25rem] [content-visibility:auto] dark:border-slate-800">
        {/* Where the table scrolls sideways (a narrow screen), the GPU's name stays in view beside its other columns. */}
        <th scope="row" data-testid="row-unit" className={`${cell} sticky left-0 z-[1] bg-white text-left font-medium whitespace-nowrap dark:bg-slate-900`}>
          <Link href={`/gpus/${encodeURIComponent(uuid)}`} aria-label={`${label}, details`} className="hover:underline">
            GPU {gpu.index}
          </Link>
          <span className="ml-2 hidden text-xs font-normal text-slate-500 md:inline dark:text-slate-400">{gpu.name.replace(/^NVIDIA /, "")}</span>
        </th>
        <td className={`${cell} whitespace-nowrap`}>
          <GpuStateBadge state={state} problem={reconciliation?.problem} slurm={reconciliation?.slurm} />
        </td>
        <td data-testid="row-util" className={`${cell} text-right tabular-nums`}>
          {isMig(gpu) ? "MIG" : gpu.utilizationGpuPct === null ? "—" : `${Math.round(gpu.utilizationGpuPct)} %`}
        </td>
        <td className={`${cell} hidden text-right whitespace-nowrap tabular-nums sm:table-cell`} title={memoryPct === null ? undefined : `${memoryPct} % used`}>
          {formatGiB(gpu.memoryUsedMiB, 0)}
          <span className="text-slate-500 dark:text-slate-400"> / {formatGiB(gpu.memoryTotalMiB, 0)}</span>
        </td>
        <td data-testid="row-booker" className={`${cell} hidden max-w-40 truncate sm:table-cell`} title={current?.team ? `${bookedBy} for ${current.team}` : undefined}>
          {bookedBy ?? nobody}
          {current?.team ? <span className="text-slate-500 dark:text-slate-400"> · {current.team}</span> : null}
        </td>
        <td data-testid="row-runs" className={`${cell} hidden max-w-48 truncate sm:table-cell`}>
          <RunnerNames running={running} />
        </td>
        {/* A phone has no room for a column each: who booked it and who runs there share one cell, wrapped, never cut. */}
        <td data-testid="row-who" className={`${cell} break-words sm:hidden`}>
          <span data-testid="row-booked-by" className="block">
            {bookedBy ?? nobody}
          </span>
          {running.length > 0 && (
            <span className="block text-xs text-slate-600 dark:text-slate-300">
              Runs: <RunnerNames running={running} />
            </span>
          )}
        </td>
        <td className={`${cell} hidden whitespace-nowrap text-slate-600 sm:table-cell dark:text-slate-300`}>{current ? formatWhen(current.endsAt, nowMs) : "—"}</td>
        <td className={`${cell} hidden text-right text-xs lg:table-cell`}>
          <BookLink hostName={gpu.hostName} index={gpu.index} after={current?.endsAt ?? null} kind={bookLinkKind(state, current !== null, mine)} />
        </td>
      </tr>
    );
  },
  (prev, next) => prev.uuid === next.uuid && prev.phase === next.phase && prev.people === next.people && sameCardContext(prev, next),
);

const nobody = <span className="text-slate-400 dark:text-slate-500">—</span>;

/** Who runs on the unit, those without its booking in red; a dash for nobody. */
function RunnerNames({ running }: { running: { name: string; intruder: boolean }[] }) {
  if (running.length === 0) return nobody;
  return running.map((runner, i) => (
    <span key={`${runner.name}-${i}`} className={runner.intruder ? "font-semibold text-red-700 dark:text-red-300" : undefined}>
      {i > 0 && ", "}
      {runner.name}
    </span>
  ));
}

/** The dense view's column heads, one table per host. */
export function FleetRowsHead() {
  const head = "px-3 py-2 text-xs font-semibold tracking-wide text-slate-500 uppercase dark:text-slate-400";
  return (
    <thead className="border-b border-slate-200 bg-slate-50 dark:border-slate-800 dark:bg-slate-950/40">
      <tr>
        <th scope="col" className={`${head} sticky left-0 z-[1] bg-slate-50 text-left dark:bg-slate-950`}>
          GPU
        </th>
        <th scope="col" className={`${head} text-left`}>
          State
        </th>
        <th scope="col" className={`${head} text-right`}>
          Util
        </th>
        <th scope="col" className={`${head} hidden text-right sm:table-cell`}>
          Memory
        </th>
        <th scope="col" className={`${head} hidden text-left sm:table-cell`}>
          Booked by
        </th>
        <th scope="col" className={`${head} hidden text-left sm:table-cell`}>
          Runs
        </th>
        <th scope="col" className={`${head} text-left sm:hidden`}>
          Booked by
        </th>
        <th scope="col" className={`${head} hidden text-left sm:table-cell`}>
          Until
        </th>
        <th scope="col" className={`${head} hidden lg:table-cell`}>
          <span className="sr-only">Book</span>
        </th>
      </tr>
    </thead>
  );
}
