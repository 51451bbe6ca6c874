"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { gpuStateOnPage } from "@/lib/live/gpu-state-now";
import { purposeWithPart } from "@/lib/domain/multi-node";
import { bookingTakesUnit, unitBookParams, unitRef, unitName, unitsPhrase } from "@/lib/domain/gpu-availability";
import type { LiveBooking } from "@/lib/live/live";
import { personName, personWithUsername } from "@/lib/format/person-name";
import { formatWhen } from "@/lib/format/local-time";
import { PALETTE_FILL_CLASS, paletteFor, paletteStyle, type PaletteColour } from "@/lib/palette";
import type { BookingStatus } from "@/lib/domain/booking-state";
import type { BookableGpu, BookableHost } from "@/lib/domain/booking-types";
import { useGpuStates } from "@/components/live/use-gpu-states";
import { useLiveFleet } from "@/components/live/use-live-fleet";
import { useNow } from "@/components/live/use-now";
import { hourTicks, percentAt, slotAt } from "@/components/bookings/schedule-axis";
import { BusyBand, runnerNames } from "@/components/bookings/schedule-busy";
import { useRefreshOnBookings } from "@/components/bookings/use-refresh-on-bookings";
import { SlurmBlockBox, slurmBlocksOf } from "@/components/bookings/slurm-block";
import type { SlurmBlock } from "@/lib/domain/slurm";

export interface ScheduleEntry extends LiveBooking {
  status: BookingStatus;
}

interface ScheduleViewProps {
  hosts: BookableHost[];
  bookings: ScheduleEntry[];
  /** Slurm's jobs and the reservations gpudesk did not make: read-only blocks (none off Slurm). */
  slurm?: SlurmBlock[];
  fromMs: number;
  toMs: number;
  days: number;
}

const LABEL_WIDTH = "7rem";
/** A host with MIG slices: "GPU 0:1 (3g.40gb)" and its Book link. */
const SLICE_LABEL_WIDTH = "12rem";

/**
 * A timeline per GPU for the coming days: every booking as a bar in its
 * booker's colour, the purpose on hover and on tap, and a click on free
 * time opens the booking form for that GPU from that half hour. Work that
 * runs now without a booking (or against one) shows as a hatched band up
 * to the now line: the GPU is busy even though no bar says so.
 */
export function ScheduleView({ hosts, bookings, slurm = [], fromMs, toMs, days }: ScheduleViewProps) {
  const fleet = useLiveFleet();
  const states = useGpuStates();
  const now = useNow(30_000);
  const router = useRouter();
  const [selected, setSelected] = useState<ScheduleEntry | null>(null);
  useRefreshOnBookings(fleet.bookings, fleet.hasSnapshot);
  const serverNow = now ? now + fleet.clockOffsetMs : 0;

  if (!serverNow) return <div className="h-96 animate-pulse rounded-xl bg-slate-200/60 dark:bg-slate-800/60" aria-busy="true" aria-label="Loading the schedule" />;

  const ticks = hourTicks(fromMs, toMs, days <= 1 ? 2 : days <= 3 ? 6 : 12);
  const people = new Map(bookings.map((booking) => [booking.bookedBy.id, booking.bookedBy]));
  const everyone = [...people.values()];
  const colourOf = paletteFor(people.keys());
  const online = new Set(fleet.hosts.filter((host) => host.online).map((host) => host.id));
  const trackMinWidth = `${Math.max(640, days * 320)}px`;

  function bookFree(host: BookableHost, gpu: BookableGpu, ratio: number) {
    const start = Math.max(slotAt(ratio, fromMs, toMs), serverNow);
    const params = new URLSearchParams({ ...unitBookParams(host.name, gpu), start: new Date(start).toISOString(), minutes: "60" });
    router.push(`/reserve?${params}`);
  }

  return (
    <div className="space-y-6">
      {people.size > 0 && (
        <ul aria-label="People" className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
          {[...people.values()].map((person) => (
            <li key={person.id} className="flex items-center gap-1.5">
              <span aria-hidden className={`size-3 rounded-sm ${PALETTE_FILL_CLASS}`} style={paletteStyle(colourOf(person.id)) as React.CSSProperties} />
              {personName(person, everyone)}
            </li>
          ))}
        </ul>
      )}

      {hosts.map((host) => (
        <section key={host.id} aria-label={`Schedule of ${host.name}`} className="rounded-xl border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
          <h2 className="border-b border-slate-200 px-4 py-2.5 text-base font-semibold dark:border-slate-800">{host.name}</h2>
          <div className="overflow-x-auto">
            <div className="grid" style={{ gridTemplateColumns: `${host.gpus.some((gpu) => gpu.mig) ? SLICE_LABEL_WIDTH : LABEL_WIDTH} minmax(${trackMinWidth}, 1fr)` }}>
              <div className="sticky left-0 z-10 border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900" />
              <div className="relative h-8 border-b border-slate-200 dark:border-slate-800" aria-hidden>
                {ticks.map((tick) =>
                  tick.label ? (
                    <span
                      key={tick.ms}
                      className={`absolute top-1.5 text-[11px] whitespace-nowrap ${tick.day ? "translate-x-1 font-semibold text-slate-700 dark:text-slate-200" : "-translate-x-1/2 text-slate-500 dark:text-slate-400"}`}
                      style={{ left: `${percentAt(tick.ms, fromMs, toMs)}%` }}
                    >
                      {tick.label}
                    </span>
                  ) : null,
                )}
              </div>
              {host.gpus.map((gpu) => {
                // Split into MIG slices: its slices' rows follow, each booked on its own; the GPU itself takes no booking.
                if (gpu.partitioned) {
                  return (
                    <div key={gpu.uuid} className="col-span-2 border-b border-slate-100 bg-slate-50 px-3 py-1 text-xs text-slate-600 dark:border-slate-800 dark:bg-slate-950 dark:text-slate-400" data-testid={`schedule-split-${host.name}-${gpu.index}`}>
                      <Link href={`/gpus/${encodeURIComponent(gpu.uuid)}`} className="sticky left-3 font-medium text-slate-800 hover:underline dark:text-slate-200">
                        GPU {gpu.index}
                      </Link>{" "}
                      · {gpu.name}, split into MIG slices: book a slice below
                    </div>
                  );
                }
                const ref = unitRef(gpu);
                const title = unitName(gpu);
                // A slice's row shows its GPU's whole bookings too (and the other way round): that silicon is taken then (`bookingTakesUnit`).
                const rowBookings = bookings.filter((booking) => bookingTakesUnit(booking, gpu));
                const reading = fleet.gpus[gpu.uuid];
                const state = reading ? gpuStateOnPage(reading, online.has(host.id), fleet.bookings, states[gpu.uuid], serverNow) : null;
                const slurmBlocks = slurmBlocksOf(slurm, gpu.uuid);
                // Held by Slurm now: its block says whose and until when, not a band.
                const busyNow = (state === "unbooked_use" && !states[gpu.uuid]?.slurm) || state === "conflict";
                return (
                  <div key={gpu.uuid} className="contents">
                    <div className="sticky left-0 z-10 flex items-center justify-between gap-1 border-b border-slate-100 bg-white px-3 text-sm dark:border-slate-800 dark:bg-slate-900">
                      <span
                        className={`flex items-center gap-1.5 font-medium whitespace-nowrap ${gpu.mig ? "min-w-0 pl-2 text-xs" : ""}`}
                        data-testid={`schedule-gpu-${host.name}-${ref}`}
                        data-state={state ?? undefined}
                        title={gpu.mig ? `MIG slice ${ref} of GPU ${gpu.index} (${gpu.mig.profile})` : undefined}
                      >
                        {busyNow && <span aria-hidden className="size-2 rounded-full bg-amber-500" />}
                        <Link href={`/gpus/${encodeURIComponent(gpu.uuid)}`} className={`hover:underline ${gpu.mig ? "truncate" : ""}`}>
                          {title}
                        </Link>
                      </span>
                      <Link
                        href={`/reserve?${new URLSearchParams(unitBookParams(host.name, gpu))}`}
                        className="rounded px-1 text-xs text-sky-700 hover:underline dark:text-sky-400"
                        aria-label={`Book ${title} on ${host.name}`}
                      >
                        Book
                      </Link>
                    </div>
                    <div
                      className="relative h-11 cursor-copy border-b border-slate-100 dark:border-slate-800"
                      data-testid={`schedule-row-${host.name}-${ref}`}
                      aria-label={`Bookings of ${title} on ${host.name}`}
                      onClick={(event) => {
                        const box = event.currentTarget.getBoundingClientRect();
                        bookFree(host, gpu, (event.clientX - box.left) / box.width);
                      }}
                    >
                      {ticks.map((tick) => (
                        <span
                          key={tick.ms}
                          aria-hidden
                          className={`absolute inset-y-0 w-px ${tick.day ? "bg-slate-300 dark:bg-slate-600" : tick.label ? "bg-slate-100 dark:bg-slate-800" : ""}`}
                          style={{ left: `${percentAt(tick.ms, fromMs, toMs)}%` }}
                        />
                      ))}
                      <span aria-hidden className="absolute inset-y-0 z-[1] w-0.5 bg-red-500" style={{ left: `${percentAt(serverNow, fromMs, toMs)}%` }} />
                      {busyNow && state && (
                        <BusyBand state={state} reading={reading} names={runnerNames(reading, states[gpu.uuid])} fromMs={fromMs} toMs={toMs} nowMs={serverNow} />
                      )}
                      {slurmBlocks.map((block) => {
                        const left = percentAt(Date.parse(block.startsAt), fromMs, toMs);
                        const right = percentAt(Date.parse(block.endsAt), fromMs, toMs);
                        return <SlurmBlockBox key={`${block.kind}-${block.id}`} block={block} nowMs={serverNow} style={{ left: `${left}%`, width: `${Math.max(right - left, 0.2)}%`, top: "0.375rem", bottom: "0.375rem", lineHeight: "2rem" }} />;
                      })}
                      {rowBookings.map((booking) => (
                        <BookingBar
                          key={booking.reservationId}
                          booking={booking}
                          who={personName(booking.bookedBy, everyone)}
                          colour={colourOf(booking.bookedBy.id)}
                          busyRow={busyNow}
                          fromMs={fromMs}
                          toMs={toMs}
                          nowMs={serverNow}
                          onSelect={setSelected}
                          selected={selected?.reservationId === booking.reservationId}
                        />
                      ))}
                    </div>
                  </div>
                );
              })}
            </div>
          </div>
          {selected && selected.hostId === host.id && <BookingDetails booking={selected} host={host} nowMs={serverNow} onClose={() => setSelected(null)} />}
        </section>
      ))}
    </div>
  );
}

interface BookingBarProps {
  booking: ScheduleEntry;
  /** The booker as people are shown on this page. */
  who: string;
  /** The booker's colour on this page (lib/palette.ts). */
  colour: PaletteColour;
  /** Someone runs on the GPU now: the bar keeps to the row's upper part, the busy band and its words to the lower (schedule-busy.tsx). */
  busyRow: boolean;
  fromMs: number;
  toMs: number;
  nowMs: number;
  onSelect: (booking: ScheduleEntry) => void;
  selected: boolean;
}

function BookingBar({ booking, who, colour, busyRow, fromMs, toMs, nowMs, onSelect, selected }: BookingBarProps) {
  const left = percentAt(Date.parse(booking.startsAt), fromMs, toMs);
  const right = percentAt(Date.parse(booking.endsAt), fromMs, toMs);
  const label = `${who}: ${purposeWithPart(booking.purpose, booking.multiNode)}, ${formatWhen(booking.startsAt, nowMs)} – ${formatWhen(booking.endsAt, nowMs)}${booking.status === "booked" ? "" : ` (${booking.status})`}`;
  return (
    <button
      type="button"
      title={label}
      aria-label={label}
      aria-expanded={selected}
      onClick={(event) => {
        event.stopPropagation();
        onSelect(booking);
      }}
      className={`absolute z-[2] min-w-1.5 overflow-hidden rounded-md px-1.5 text-left text-xs font-medium whitespace-nowrap text-slate-950 ring-inset focus-visible:outline-2 focus-visible:outline-sky-500 ${PALETTE_FILL_CLASS} ${
        busyRow ? "top-0.5 h-6 leading-6" : "inset-y-1.5 leading-8"
      } ${
        selected ? "ring-2 ring-slate-900 dark:ring-white" : ""
      } ${booking.status === "booked" ? "" : "opacity-45 outline-1 -outline-offset-1 outline-dashed outline-slate-500"}`}
      style={{ left: `${left}%`, width: `${Math.max(right - left, 0.2)}%`, ...paletteStyle(colour) } as React.CSSProperties}
    >
      {who} · {purposeWithPart(booking.purpose, booking.multiNode)}
    </button>
  );
}

function BookingDetails({ booking, host, nowMs, onClose }: { booking: ScheduleEntry; host: BookableHost; nowMs: number; onClose: () => void }) {
  // Each unit by its one name ("GPU 0:2 (1g.10gb)"), as its row names it.
  const units = new Map(host.gpus.map((gpu) => [gpu.uuid, gpu]));
  const gpus = unitsPhrase(booking.gpus.map((gpu) => units.get(gpu.uuid) ?? gpu));
  return (
    <div role="region" aria-label="Booking details" className="flex flex-wrap items-start gap-x-6 gap-y-1 border-t border-slate-200 px-4 py-3 text-sm dark:border-slate-800">
      <p>
        <strong>{personWithUsername(booking.bookedBy)}</strong>
        {booking.team ? <span className="text-slate-600 dark:text-slate-400"> for {booking.team}</span> : null}
      </p>
      <p>
        {gpus} · {formatWhen(booking.startsAt, nowMs)} – {formatWhen(booking.endsAt, nowMs)}
        {booking.status !== "booked" && ` · ${booking.status}`}
      </p>
      <p className="min-w-0 basis-full text-slate-700 sm:basis-auto dark:text-slate-300">{purposeWithPart(booking.purpose, booking.multiNode)}</p>
      <button type="button" onClick={onClose} className="ml-auto text-sky-700 hover:underline dark:text-sky-400">
        Close
      </button>
    </div>
  );
}
