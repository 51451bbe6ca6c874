import Link from "next/link";
import { memo, useId } from "react";
import type { LiveGpu } from "@/lib/live/live";
import { formatGiB, formatPower, formatRelativeTime, formatTemperature } from "@/lib/format/format";
import { Sparkline } from "@/components/charts/sparkline";
import { useGpuReconciliation } from "@/components/live/use-gpu-states";
import { slurmHoldSentence } from "@/lib/domain/slurm";
import { formatWhen } from "@/lib/format/local-time";
import { isGpuFree, isGpuFreeFor, isPartitioned, unitName, unseenUsePhrase } from "@/lib/domain/gpu-availability";
import { gpuStateNow, unseenUseNow } from "@/lib/live/gpu-state-now";
import { useOptionalCurrentUser } from "@/components/auth/current-user";
import { GpuAttribution } from "@/components/alerts/gpu-attribution";
import { GpuStateBadge } from "@/components/alerts/gpu-state-badge";
import { Badge } from "@/components/ui/badge";
import { GpuBooking } from "@/components/gpu/gpu-booking";
import { MemoryBar } from "@/components/gpu/memory-bar";
import { ProcessList } from "@/components/gpu/process-list";
import { UtilizationValue } from "@/components/gpu/utilization-value";
import { temperatureTone } from "@/components/gpu/thresholds";
import { sameCardProps, type GpuCardProps } from "@/components/gpu/card-props";

/**
 * One GPU at a glance. The whole card links to the GPU's page through a
 * stretched link (the title's ::after covers the card), so that the
 * process commands inside can still be opened with a tap: links may not
 * contain other interactive elements.
 */
const NOBODY: NonNullable<GpuCardProps["people"]> = [];

export const GpuCard = memo(function GpuCard({ gpu, sparkline, stale, nowMs, booking, people = NOBODY }: GpuCardProps) {
  const id = useId();
  const name = unitName(gpu);
  const label = `${name} on ${gpu.hostName}`;
  // Split into MIG slices: not a unit itself, its slices' cards follow it.
  const partitioned = isPartitioned(gpu);
  // Who really runs here and how that compares with the booking (server/attribution).
  const reconciliation = useGpuReconciliation(gpu.uuid);
  const viewer = useOptionalCurrentUser();
  // The one rule decides; these stand out as free to book right now.
  const state = gpuStateNow(gpu, !stale, booking?.current ?? null, reconciliation);
  const open = Boolean(booking) && isGpuFree(state) && !isPartitioned(gpu);
  const mine = Boolean(viewer && reconciliation && state === "unbooked_use" && isGpuFreeFor(reconciliation, viewer.id));
  // Held with no process listed: the card says so, in the figures of this reading.
  const unseen = !stale && unseenUseNow(gpu, reconciliation) ? unseenUsePhrase(gpu.memoryUsedMiB) : null;

  // content-visibility: a card off screen skips style, layout and paint while its values
  // change each second, yet stays in the accessibility tree and find-in-page. On the
  // article, not its list item, so that its own ring and shadow are not clipped.
  return (
    <article
      aria-label={label}
      data-stale={stale || undefined}
      className={`relative flex h-full flex-col gap-3 rounded-xl border bg-white p-4 shadow-xs transition-colors has-[a:focus-visible]:ring-2 has-[a:focus-visible]:ring-sky-500 hover:border-slate-300 dark:bg-slate-900 dark:hover:border-slate-600 [contain-intrinsic-size:auto_21rem] [content-visibility:auto] ${
        stale
          ? "border-dashed border-slate-300 dark:border-slate-700"
          : open
            ? "border-emerald-400 ring-1 ring-emerald-400/40 dark:border-emerald-700 dark:ring-emerald-700/40"
            : "border-slate-200 dark:border-slate-800"
      }`}
    >
      <header className="flex items-start gap-2">
        <div className="min-w-0 flex-1">
          <CardTitle uuid={gpu.uuid} name={name} label={label} />
          <p className="truncate text-xs text-slate-500 dark:text-slate-400" title={gpu.name}>
            {gpu.mig ? `MIG slice of ${gpu.name}` : partitioned ? `${gpu.name}, split into MIG slices` : gpu.name}
          </p>
        </div>
        {stale ? (
          <StaleBadge gpu={gpu} nowMs={nowMs} />
        ) : partitioned && state !== "error" ? (
          <Badge tone="offline" title="Split into MIG slices: each slice is booked on its own">
            MIG
          </Badge>
        ) : (
          <GpuStateBadge state={state} problem={reconciliation?.problem} unseen={unseen !== null} slurm={reconciliation?.slurm} />
        )}
      </header>

      <div className="flex items-end gap-3">
        <dl className="shrink-0">
          <dt id={`${id}-util`} className="text-xs text-slate-500 dark:text-slate-400">
            Utilization
          </dt>
          <UtilizationValue gpu={gpu} labelledBy={`${id}-util`} className="text-2xl leading-8 font-semibold tabular-nums" />
        </dl>
        <Sparkline points={sparkline} stale={stale} className="min-w-0 flex-1" />
      </div>

      <dl className="grid grid-cols-2 gap-x-2 gap-y-2 text-xs">
        <div className="col-span-2 space-y-1">
          <div className="flex items-baseline justify-between gap-2">
            <dt id={`${id}-mem`} className="text-slate-500 dark:text-slate-400">
              Memory
            </dt>
            <dd aria-labelledby={`${id}-mem`} data-testid="gpu-memory" className="tabular-nums">
              {formatGiB(gpu.memoryUsedMiB)}
              <span className="text-slate-500 dark:text-slate-400"> / {formatGiB(gpu.memoryTotalMiB)}</span>
            </dd>
          </div>
          <dd>
            <MemoryBar usedMiB={gpu.memoryUsedMiB} totalMiB={gpu.memoryTotalMiB} stale={stale} />
          </dd>
        </div>
        <div>
          <dt id={`${id}-temp`} className="text-slate-500 dark:text-slate-400">
            Temperature
          </dt>
          <dd
            aria-labelledby={`${id}-temp`}
            data-testid="gpu-temperature"
            className={`text-sm tabular-nums ${stale ? "" : temperatureTone(gpu.temperatureC)}`}
          >
            {formatTemperature(gpu.temperatureC)}
          </dd>
        </div>
        <div>
          <dt id={`${id}-power`} className="text-slate-500 dark:text-slate-400">
            Power
          </dt>
          <dd aria-labelledby={`${id}-power`} data-testid="gpu-power" className="text-sm tabular-nums">
            {formatPower(gpu.powerDrawW, gpu.powerLimitW)}
          </dd>
        </div>
      </dl>

      {booking && !partitioned && (
        <div className="border-t border-slate-100 pt-3 dark:border-slate-800">
          <GpuBooking
            hostName={gpu.hostName}
            index={gpu.index}
            state={state}
            mine={mine}
            unseen={unseen}
            slurm={reconciliation?.slurm && reconciliation.slurm.kind !== "booked-job" ? reconciliation.slurm : null}
            current={booking.current}
            next={booking.next}
            people={people}
            nowMs={nowMs}
          />
        </div>
      )}

      {/* The booker's job under the booking; Slurm's own hold is said on the booking line above. */}
      {!stale && reconciliation?.slurm?.kind === "booked-job" && (
        <p data-testid="gpu-slurm" className="text-xs text-slate-700 dark:text-slate-300">
          {slurmHoldSentence(reconciliation.slurm, (iso) => formatWhen(iso, nowMs))}
        </p>
      )}

      <div className="mt-auto space-y-2 border-t border-slate-100 pt-3 dark:border-slate-800">
        {reconciliation && <GpuAttribution reconciliation={reconciliation} />}
        <ProcessList processes={gpu.processes} stale={stale} unseen={unseen !== null} />
      </div>
    </article>
  );
}, sameCardProps);

/** The card's stretched link: it changes only with the GPU's identity, so it is not drawn again each second. */
const CardTitle = memo(function CardTitle({ uuid, name, label }: { uuid: string; name: string; label: string }) {
  return (
    <h3 className="text-base leading-6 font-semibold">
      <Link
        href={`/gpus/${encodeURIComponent(uuid)}`}
        aria-label={`${label}, details`}
        className="outline-hidden after:absolute after:inset-0 after:rounded-xl hover:underline"
      >
        {name}
      </Link>
    </h3>
  );
});

function StaleBadge({ gpu, nowMs }: { gpu: LiveGpu; nowMs: number }) {
  return (
    <Badge tone="offline" title={`Last values, sampled ${formatRelativeTime(gpu.sampledAt, nowMs)}`}>
      Stale
    </Badge>
  );
}
