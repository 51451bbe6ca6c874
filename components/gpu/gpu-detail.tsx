"use client";

import Link from "next/link";
import { useMemo, useSyncExternalStore } from "react";
import { chartScales, timeAxis, toChartRows } from "@/lib/live/gpu-series";
import { DASH, formatGiB, formatRelativeTime } from "@/lib/format/format";
import { gpuStateOnPage, unseenUseNow } from "@/lib/live/gpu-state-now";
import { isPartitioned, unitBookParams, unitName, unseenUsePhrase } from "@/lib/domain/gpu-availability";
import { useGpuScope } from "@/components/live/use-gpu-scope";
import { useNow } from "@/components/live/use-now";
import { GpuCharts } from "@/components/charts/gpu-charts";
import { ConnectionBanner } from "@/components/fleet/connection-banner";
import { GpuBookings } from "@/components/gpu/gpu-bookings";
import { GpuLiveValues } from "@/components/gpu/gpu-live-values";
import { GpuSlices } from "@/components/gpu/gpu-slices";
import { GpuNotFound } from "@/components/gpu/gpu-not-found";
import { ProcessTable } from "@/components/gpu/process-table";
import { isMig } from "@/components/gpu/utilization-value";
import { AppHeader } from "@/components/ui/app-header";
import { Badge } from "@/components/ui/badge";
import { GpuUsageHistory } from "@/components/usage/gpu-usage-history";
import { GpuStateBadge } from "@/components/alerts/gpu-state-badge";
import { GpuWhoRuns } from "@/components/alerts/gpu-who-runs";

const noSubscription = () => () => {};
const viewerTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
const noTimeZoneOnServer = () => "";

/**
 * One GPU: what it does now, its last 15 minutes, and who runs on it. It
 * watches this GPU's scope of the live feed alone (components/live/use-gpu-scope.ts),
 * not the whole fleet's.
 */
export function GpuDetail({ uuid }: { uuid: string }) {
  const fleet = useGpuScope(uuid);
  const now = useNow();
  const timeZone = useSyncExternalStore(noSubscription, viewerTimeZone, noTimeZoneOnServer);

  const { gpu, host, reconciliation } = fleet;
  const stale = host ? !host.online : false;
  const memoryTotalMiB = gpu?.memoryTotalMiB ?? null;
  const powerLimitW = gpu?.powerLimitW ?? null;
  const history = useMemo(() => {
    const rows = toChartRows(fleet.points);
    return { rows, axis: timeAxis(rows.length > 0 ? rows[rows.length - 1].t : Date.now()) };
  }, [fleet.points]);
  const scales = useMemo(
    () => chartScales(history.rows, { memoryTotalMiB, powerLimitW }),
    [history.rows, memoryTotalMiB, powerLimitW],
  );

  const header = <AppHeader status={fleet.status} simulated={fleet.simulated} />;

  if (!fleet.hasSnapshot) {
    return (
      <>
        {header}
        <main className="mx-auto max-w-screen-2xl px-4 py-6 sm:px-6" aria-busy="true">
          <div className="h-8 w-64 animate-pulse rounded bg-slate-200 motion-reduce:animate-none dark:bg-slate-800" />
          <div className="mt-6 grid grid-cols-2 gap-3 md:grid-cols-4">
            {[0, 1, 2, 3].map((i) => (
              <div key={i} className="h-24 animate-pulse rounded-xl bg-slate-200 motion-reduce:animate-none dark:bg-slate-800" />
            ))}
          </div>
          <span className="sr-only">Loading the GPU…</span>
        </main>
      </>
    );
  }

  if (!gpu) {
    return (
      <>
        {header}
        <main className="px-4 py-10 sm:px-6">
          <GpuNotFound uuid={uuid} />
        </main>
      </>
    );
  }

  const mig = isMig(gpu);
  const slice = gpu.mig ?? null;
  const partitioned = isPartitioned(gpu);
  const serverNow = now + fleet.clockOffsetMs;
  const title = unitName(gpu);

  return (
    <>
      {header}
      <main className="mx-auto max-w-screen-2xl space-y-8 px-4 py-6 sm:px-6">
        <div className="space-y-4">
          <nav aria-label="Breadcrumb" className="text-sm text-slate-500 dark:text-slate-400">
            <Link href="/" className="hover:text-slate-900 hover:underline dark:hover:text-slate-100">
              Fleet
            </Link>
            <span aria-hidden> / </span>
            <span>{gpu.hostName}</span>
            {slice && (
              <>
                <span aria-hidden> / </span>
                <Link href={`/gpus/${encodeURIComponent(slice.parentUuid)}`} className="hover:text-slate-900 hover:underline dark:hover:text-slate-100">
                  GPU {gpu.index}
                </Link>
              </>
            )}
          </nav>
          <div className="flex flex-wrap items-center gap-3">
            <h1 className="text-2xl font-semibold tracking-tight">
              {title} on {gpu.hostName}
            </h1>
            {stale ? (
              <Badge tone="offline">Host offline · stale</Badge>
            ) : partitioned && reconciliation?.state !== "error" ? null : (
              // The one rule, before the server's states arrive too: a booked idle GPU is not "Free".
              <GpuStateBadge
                state={gpuStateOnPage(gpu, true, fleet.bookings, reconciliation, serverNow)}
                problem={reconciliation?.problem}
                unseen={unseenUseNow(gpu, reconciliation) !== null}
                slurm={reconciliation?.slurm}
                nowMs={serverNow}
              />
            )}
            {slice ? <Badge>MIG slice</Badge> : mig && <Badge>{partitioned ? "Split into MIG slices" : "MIG enabled"}</Badge>}
          </div>
          <dl className="grid grid-cols-1 gap-x-8 gap-y-2 text-sm sm:grid-cols-2 xl:grid-cols-4">
            <Meta label="Model">{slice ? `MIG slice of ${gpu.name || DASH}` : gpu.name || DASH}</Meta>
            {slice && (
              <>
                <Meta label="Profile">
                  {slice.profile} · {formatGiB(gpu.memoryTotalMiB)}
                  <span className="block text-xs text-slate-500 dark:text-slate-400">
                    MIG device {slice.deviceIndex} · GPU instance {slice.gpuInstanceId} · compute instance {slice.computeInstanceId}
                  </span>
                </Meta>
                <Meta label="Part of">
                  <Link href={`/gpus/${encodeURIComponent(slice.parentUuid)}`} className="text-sky-700 hover:underline dark:text-sky-400">
                    GPU {gpu.index} on {gpu.hostName}
                  </Link>
                </Meta>
              </>
            )}
            <Meta label="UUID" mono>
              {gpu.uuid}
            </Meta>
            <Meta label="PCI bus id" mono>
              {gpu.pciBusId ?? DASH}
            </Meta>
            <Meta label="Host">
              {host?.online ? "online" : "offline"} · sampled {formatRelativeTime(gpu.sampledAt, serverNow)}
              {host && (
                <span className="block text-xs text-slate-500 dark:text-slate-400">
                  Driver {host.driverVersion ?? DASH} · CUDA {host.cudaVersion ?? DASH}
                </span>
              )}
            </Meta>
          </dl>
        </div>

        <ConnectionBanner status={fleet.status} lastUpdateAt={fleet.lastUpdateAt} nowMs={now} onRetry={fleet.reconnect} />

        <section aria-labelledby="now-title">
          <h2 id="now-title" className="sr-only">
            Now
          </h2>
          <GpuLiveValues gpu={gpu} stale={stale} />
          {(slice || partitioned) && (
            <p className="mt-2 text-xs text-slate-500 dark:text-slate-400" data-testid="mig-utilization-note">
              {slice
                ? "nvidia-smi does not report utilization per MIG slice, nor power or temperature: memory and processes are this slice's own; its GPU's page has the rest."
                : "nvidia-smi does not report utilization of a GPU split into MIG slices, nor per slice: see each slice's memory and processes."}
            </p>
          )}
        </section>

        {partitioned && (
          <section aria-labelledby="slices-title" className="space-y-3">
            <h2 id="slices-title" className="text-lg font-semibold">
              MIG slices
            </h2>
            <p className="text-sm text-slate-600 dark:text-slate-400">This GPU is split into MIG slices: each slice is booked on its own, the GPU itself is not.</p>
            <GpuSlices parentUuid={gpu.uuid} nowMs={now} />
          </section>
        )}

        {!partitioned && (
          <section aria-labelledby="bookings-title" className="space-y-3">
            <h2 id="bookings-title" className="text-lg font-semibold">
              Bookings
            </h2>
            <GpuBookings bookings={fleet.bookings.filter((booking) => Date.parse(booking.endsAt) > serverNow)} nowMs={serverNow} bookHref={`/reserve?${new URLSearchParams(unitBookParams(gpu.hostName, gpu))}`} />
          </section>
        )}

        <section aria-labelledby="history-title" className="space-y-3">
          <div className="flex flex-wrap items-baseline justify-between gap-x-4">
            <h2 id="history-title" className="text-lg font-semibold">
              Last 15 minutes
            </h2>
            <p className="text-xs text-slate-500 dark:text-slate-400">{timeZone && `Times in ${timeZone}`}</p>
          </div>
          <GpuCharts rows={history.rows} axis={history.axis} scales={scales} gpu={gpu} mig={mig} />
        </section>

        <section aria-labelledby="usage-history-title" className="space-y-3">
          <h2 id="usage-history-title" className="text-lg font-semibold">
            History
          </h2>
          <GpuUsageHistory uuid={uuid} />
        </section>

        <section aria-labelledby="processes-title" className="space-y-3">
          <h2 id="processes-title" className="text-lg font-semibold">
            Processes <span className="text-slate-500 tabular-nums dark:text-slate-400">({gpu.processes.length})</span>
          </h2>
          <ProcessTable processes={gpu.processes} stale={stale} unseen={!stale && unseenUseNow(gpu, reconciliation) ? unseenUsePhrase(gpu.memoryUsedMiB) : null} />
        </section>

        {reconciliation && (
          <section aria-labelledby="who-runs-title" className="space-y-3">
            <h2 id="who-runs-title" className="text-lg font-semibold">
              Who runs here
            </h2>
            <GpuWhoRuns reconciliation={reconciliation} nowMs={serverNow} />
          </section>
        )}
      </main>
    </>
  );
}

function Meta({ label, mono = false, children }: { label: string; mono?: boolean; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className={mono ? "font-mono text-xs leading-5 break-all" : ""}>{children}</dd>
    </div>
  );
}
