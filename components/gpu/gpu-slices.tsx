"use client";

import Link from "next/link";
import { formatGiB } from "@/lib/format/format";
import { siliconOf, unitBookParams, unitName } from "@/lib/domain/gpu-availability";
import { gpuStateOnPage } from "@/lib/live/gpu-state-now";
import { bookingsOfGpu } from "@/lib/live/live-fleet-state";
import { formatWhen } from "@/lib/format/local-time";
import { personName } from "@/lib/format/person-name";
import { GpuStateBadge } from "@/components/alerts/gpu-state-badge";
import { useGpuStates } from "@/components/live/use-gpu-states";
import { useLiveFleet } from "@/components/live/use-live-fleet";
import { bodyRow, headRow, table, tableCard, td, th } from "@/components/ui/table-styles";

/**
 * The slices of a GPU split into MIG slices, each with its state by the one
 * rule, its booker and a link to its page. It takes the fleet's feed (the
 * GPU page otherwise watches one GPU): the slices' states and bookings come
 * with it, as on the fleet view.
 */
export function GpuSlices({ parentUuid, nowMs }: { parentUuid: string; nowMs: number }) {
  const fleet = useLiveFleet();
  const states = useGpuStates();
  if (!fleet.hasSnapshot) return <p className="text-sm text-slate-500 dark:text-slate-400">Loading the slices…</p>;
  const slices = Object.values(fleet.gpus)
    .filter((gpu) => gpu.mig?.parentUuid === parentUuid)
    .sort((a, b) => (a.mig?.deviceIndex ?? 0) - (b.mig?.deviceIndex ?? 0));
  if (slices.length === 0) return <p className="text-sm text-slate-500 dark:text-slate-400">No MIG slice is reported on this GPU.</p>;
  const online = new Set(fleet.hosts.filter((host) => host.online).map((host) => host.id));
  const serverNow = nowMs + fleet.clockOffsetMs;
  const people = fleet.bookings.map((booking) => booking.bookedBy);
  return (
    <div className={tableCard}>
      <table className={table} aria-label="MIG slices">
        <thead>
          <tr className={headRow}>
            <th className={th}>Slice</th>
            <th className={th}>Memory</th>
            <th className={th}>State</th>
            <th className={th}>Booker</th>
            <th className={th}>
              <span className="sr-only">Book</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {slices.map((slice) => {
            const { current, next } = bookingsOfGpu(fleet.bookings, siliconOf(slice), serverNow);
            const state = gpuStateOnPage(slice, online.has(slice.hostId), fleet.bookings, states[slice.uuid], serverNow);
            const title = unitName(slice);
            return (
              <tr key={slice.uuid} className={bodyRow} aria-label={`${title} on ${slice.hostName}`}>
                <td className={`${td} whitespace-nowrap font-medium`}>
                  <Link href={`/gpus/${encodeURIComponent(slice.uuid)}`} className="text-sky-700 hover:underline dark:text-sky-400">
                    {title}
                  </Link>
                </td>
                <td className={`${td} whitespace-nowrap tabular-nums`}>
                  {formatGiB(slice.memoryUsedMiB)} / {formatGiB(slice.memoryTotalMiB)}
                </td>
                <td className={td}>
                  <GpuStateBadge state={state} problem={states[slice.uuid]?.problem} />
                </td>
                <td className={td} data-testid="slice-booker">
                  {current ? (
                    <>
                      <span className="font-medium">{personName(current.bookedBy, people)}</span> until {formatWhen(current.endsAt, serverNow)}
                    </>
                  ) : (
                    <span className="text-slate-500 dark:text-slate-400">Not booked now</span>
                  )}
                  {next && (
                    <span className="block text-xs text-slate-500 dark:text-slate-400">
                      Next: {personName(next.bookedBy, people)} {formatWhen(next.startsAt, serverNow)}
                    </span>
                  )}
                </td>
                <td className={`${td} text-right`}>
                  <Link href={`/reserve?${new URLSearchParams(unitBookParams(slice.hostName, slice))}`} className="text-sm text-sky-700 hover:underline dark:text-sky-400" aria-label={`Book ${title} on ${slice.hostName}`}>
                    Book
                  </Link>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
