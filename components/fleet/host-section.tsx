import { describeAvailability, type AvailabilityCounts, type SiliconUnit } from "@/lib/domain/gpu-availability";
import type { LiveBooking, LiveHost } from "@/lib/live/live";
import type { PersonRef } from "@/lib/domain/booking-types";
import { bookingsOfGpu } from "@/lib/live/live-fleet-state";
import { DASH, formatRelativeTime } from "@/lib/format/format";
import { FleetCard } from "@/components/fleet/fleet-card";
import { FleetRow, FleetRowsHead } from "@/components/fleet/fleet-row";
import type { FleetLayout } from "@/components/fleet/fleet-layout-choice";

interface HostSectionProps {
  host: LiveHost;
  /** This host's GPUs the page holds readings of, in index order: each card takes its readings from the store. */
  gpuUuids: string[];
  /** Each of them as silicon (`siliconOf`): a booking of a GPU holds its slices and the other way round (`bookingTakesUnit`). */
  silicon?: Readonly<Record<string, SiliconUnit>>;
  /** Server-clock now. */
  nowMs: number;
  /** Active and upcoming bookings; each card shows its own. */
  bookings?: LiveBooking[];
  /** This host's GPUs by state (the one rule); absent while it has none. */
  counts?: AvailabilityCounts;
  /** Everyone named on the page, so that two people with one display name are told apart. */
  people?: PersonRef[];
  /** The place of this host's first GPU on the page: off-screen cards refresh in turns by it. */
  position?: number;
  /** Cards (the default) or one row per GPU. */
  layout?: FleetLayout;
  /** Folded: only the host's line shows. */
  folded?: boolean;
  onToggleFold?: () => void;
  /** GPUs of this host a filter hid, for the host's line. */
  hiddenCount?: number;
}

export function HostSection({ host, gpuUuids, silicon, nowMs, bookings, counts, people, position = 0, layout = "cards", folded = false, onToggleFold, hiddenCount = 0 }: HostSectionProps) {
  const headingId = `host-${host.id}`;
  const bodyId = `host-${host.id}-gpus`;
  const stale = !host.online;

  return (
    <section aria-label={`Host ${host.name}`} data-online={host.online} className="scroll-mt-20">
      <div className="mb-3 flex flex-wrap items-baseline gap-x-4 gap-y-1">
        <h2 id={headingId} className="text-lg font-semibold tracking-tight break-all">
          {onToggleFold ? (
            <button
              type="button"
              aria-expanded={!folded}
              aria-controls={bodyId}
              onClick={onToggleFold}
              className="inline-flex items-baseline gap-1.5 rounded text-left hover:underline focus-visible:outline-2 focus-visible:outline-sky-500"
            >
              <span aria-hidden className={`inline-block w-3 text-sm text-slate-500 transition-transform ${folded ? "" : "rotate-90"}`}>
                ▸
              </span>
              {host.name}
            </button>
          ) : (
            host.name
          )}
        </h2>
        <p className="flex items-center gap-1.5 text-sm">
          <span aria-hidden className={`size-2 rounded-full ${host.online ? "bg-free" : "bg-offline"}`} />
          <span data-testid="host-status" className={host.online ? "text-emerald-700 dark:text-emerald-400" : "text-slate-500 dark:text-slate-400"}>
            {host.online ? "online" : "offline"}
          </span>
          <span className="text-slate-500 dark:text-slate-400">
            · last seen <time dateTime={host.lastSeenAt ?? undefined}>{formatRelativeTime(host.lastSeenAt, nowMs, "never")}</time>
          </span>
        </p>
        {counts && host.online && (
          <p data-testid="host-availability" className="text-sm text-slate-600 dark:text-slate-300">
            {describeAvailability(counts)}
          </p>
        )}
        {hiddenCount > 0 && <p className="text-xs text-slate-500 dark:text-slate-400">{hiddenCount} hidden by the filter</p>}
        <p className="text-xs text-slate-500 sm:ml-auto dark:text-slate-400">
          Driver {host.driverVersion ?? DASH} · CUDA {host.cudaVersion ?? DASH}
        </p>
      </div>

      {folded ? null : gpuUuids.length === 0 && hiddenCount === 0 ? (
        <p className="rounded-xl border border-dashed border-slate-300 p-4 text-sm text-slate-500 dark:border-slate-700 dark:text-slate-400">
          This host reports no GPUs.
        </p>
      ) : gpuUuids.length === 0 ? null : layout === "dense" ? (
        <div id={bodyId} className={`overflow-x-auto rounded-xl border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900 ${stale ? "opacity-75 grayscale" : ""}`}>
          <table aria-labelledby={headingId} className="w-full text-sm">
            <FleetRowsHead />
            <tbody>
              {gpuUuids.map((uuid, i) => (
                <FleetRow
                  key={uuid}
                  uuid={uuid}
                  phase={position + i}
                  stale={stale}
                  nowMs={nowMs}
                  booking={bookings ? bookingsOfGpu(bookings, silicon?.[uuid] ?? { uuid }, nowMs) : undefined}
                  people={people}
                />
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <ul
          id={bodyId}
          role="list"
          aria-labelledby={headingId}
          className={`grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4 ${stale ? "opacity-75 grayscale" : ""}`}
        >
          {gpuUuids.map((uuid, i) => (
            <FleetCard
              key={uuid}
              uuid={uuid}
              phase={position + i}
              stale={stale}
              nowMs={nowMs}
              booking={bookings ? bookingsOfGpu(bookings, silicon?.[uuid] ?? { uuid }, nowMs) : undefined}
              people={people}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
