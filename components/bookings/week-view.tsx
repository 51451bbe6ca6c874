"use client";

import { purposeWithPart } from "@/lib/domain/multi-node";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { formatClock, formatDay, formatWhen } from "@/lib/format/local-time";
import { PALETTE_FILL_CLASS, paletteFor, paletteStyle } from "@/lib/palette";
import { personInitials, personName } from "@/lib/format/person-name";
import { bookingTakesUnit, type SiliconUnit, unitBookParams, unitRef, unitName } from "@/lib/domain/gpu-availability";
import type { BookableHost } from "@/lib/domain/booking-types";
import { useLiveFleet } from "@/components/live/use-live-fleet";
import { useNow } from "@/components/live/use-now";
import type { ScheduleEntry } from "@/components/bookings/schedule-view";
import { dayStarts, dragWindow, slotInDay, spanInDay, WEEK_DAYS, type Span } from "@/components/bookings/week-grid";
import { useRefreshOnBookings } from "@/components/bookings/use-refresh-on-bookings";
import { SlurmBlockBox, slurmBlocksOf } from "@/components/bookings/slurm-block";
import type { SlurmBlock } from "@/lib/domain/slurm";

interface WeekViewProps {
  host: BookableHost;
  /** One unit's column per day ("2", or a MIG slice "0:1"); null: every unit of the host side by side. */
  unitRef: string | null;
  bookings: ScheduleEntry[];
  /** Slurm's jobs and the reservations gpudesk did not make: read-only blocks that a drag stops at. */
  slurm?: SlurmBlock[];
}

const HOUR_PX = 26;

interface Drag {
  day: number;
  gpu: number;
  fromSlot: number;
  toSlot: number;
}

/**
 * The coming week of one host as a calendar: days across, hours down, each
 * booking a block in its booker's colour, in the column of each of its GPUs,
 * and a line at now in today's column. Dragging over free time of a GPU
 * opens the booking form with that window filled in.
 */
export function WeekView({ host, unitRef: shownRef, bookings, slurm = [] }: WeekViewProps) {
  const fleet = useLiveFleet();
  const now = useNow(30_000);
  const router = useRouter();
  const [drag, setDrag] = useState<Drag | null>(null);
  const dragRef = useRef<Drag | null>(null);
  const scrollBox = useRef<HTMLDivElement>(null);
  useRefreshOnBookings(fleet.bookings, fleet.hasSnapshot);
  const serverNow = now ? now + fleet.clockOffsetMs : 0;
  const opened = serverNow !== 0;
  // The week opens at now (an hour of the past above it), not at midnight: what one books is mostly what comes next.
  useEffect(() => {
    const box = scrollBox.current;
    if (!opened || !box) return;
    const line = box.querySelector<HTMLElement>("[data-testid='week-now']");
    if (!line) return;
    const lineInBox = line.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
    box.scrollTop = Math.max(0, lineInBox - stickyHeadHeight(box) - HOUR_PX);
    // A phone shows the controls above the week: where now is still below the fold, the page moves it up too.
    const lineTop = line.getBoundingClientRect().top;
    if (lineTop > window.innerHeight - HOUR_PX) window.scrollBy({ top: lineTop - window.innerHeight * 0.4 });
  }, [opened]);
  if (!serverNow) return <div className="h-96 animate-pulse rounded-xl bg-slate-200/60 dark:bg-slate-800/60" aria-busy="true" aria-label="Loading the week" />;

  const days = dayStarts(serverNow, WEEK_DAYS);
  // A GPU split into MIG slices is booked by its slices: their columns, not its own.
  const units = host.gpus.filter((gpu) => !gpu.partitioned);
  const gpus = shownRef === null ? units : units.filter((gpu) => unitRef(gpu) === shownRef);
  const everyone = bookings.map((booking) => booking.bookedBy);
  const colourOf = paletteFor(everyone.map((person) => person.id));
  // Blocks for every booking of the week (ended ones faded); only those still booked keep a drag out.
  const busyOf = (unit: SiliconUnit): Span[] =>
    bookings
      .filter((booking) => booking.status === "booked")
      .filter((booking) => bookingTakesUnit(booking, unit))
      .map((booking) => ({ startMs: Date.parse(booking.startsAt), endMs: Date.parse(booking.endsAt) }))
      .concat(slurmBlocksOf(slurm, unit.uuid).map((block) => ({ startMs: Date.parse(block.startsAt), endMs: Date.parse(block.endsAt) })));
  const height = 24 * HOUR_PX;

  function slotAtPointer(event: React.PointerEvent<HTMLElement>, day: number): number {
    const box = event.currentTarget.getBoundingClientRect();
    return slotInDay(days[day], days[day + 1], (event.clientY - box.top) / box.height);
  }

  function finish() {
    const current = dragRef.current;
    dragRef.current = null;
    setDrag(null);
    if (!current) return;
    const gpu = gpus[current.gpu];
    const window = dragWindow(current.fromSlot, current.toSlot, busyOf(gpu), serverNow);
    if (!window) return;
    const params = new URLSearchParams({ ...unitBookParams(host.name, gpu), start: new Date(window.startMs).toISOString(), end: new Date(window.endMs).toISOString() });
    router.push(`/reserve?${params}`);
  }

  const selection = drag ? dragWindow(drag.fromSlot, drag.toSlot, busyOf(gpus[drag.gpu]), serverNow) : null;

  return (
    <div
      ref={scrollBox}
      className="max-h-[75vh] overflow-auto overscroll-contain rounded-xl border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900"
      data-testid="week-view"
    >
      <div className="grid min-w-[56rem]" style={{ gridTemplateColumns: `3.5rem repeat(${WEEK_DAYS}, minmax(0, 1fr))` }}>
        <div data-week-head className="sticky top-0 z-[5] border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900" />
        {days.slice(0, WEEK_DAYS).map((start, day) => (
          <div
            key={start}
            data-week-head
            className={`sticky top-0 z-[5] border-b border-l border-slate-200 px-1 py-1.5 text-center dark:border-slate-800 ${day === 0 ? "bg-sky-50 dark:bg-sky-950" : "bg-white dark:bg-slate-900"}`}
          >
            <p className={`text-sm font-semibold ${day === 0 ? "text-sky-800 dark:text-sky-200" : ""}`}>{day === 0 ? `Today, ${formatDay(start)}` : formatDay(start)}</p>
            {gpus.length > 1 && (
              <p aria-hidden className="flex text-[10px] text-slate-500 dark:text-slate-400">
                {gpus.map((gpu) => (
                  <span key={gpu.uuid} className="flex-1 truncate text-center" title={unitName(gpu)}>
                    {unitRef(gpu)}
                  </span>
                ))}
              </p>
            )}
          </div>
        ))}

        <div className="relative" style={{ height }} aria-hidden>
          {Array.from({ length: 24 }, (_, hour) => (
            <span key={hour} className="absolute right-1.5 -translate-y-1/2 text-[11px] text-slate-500 tabular-nums dark:text-slate-400" style={{ top: hour * HOUR_PX }}>
              {hour === 0 ? "" : `${String(hour).padStart(2, "0")}:00`}
            </span>
          ))}
        </div>
        {days.slice(0, WEEK_DAYS).map((start, day) => {
          const end = days[day + 1];
          const nowLine = serverNow >= start && serverNow < end ? (serverNow - start) / (end - start) : null;
          return (
            <div key={start} className="relative flex border-l border-slate-200 dark:border-slate-800" style={{ height }}>
              {Array.from({ length: 24 }, (_, hour) => (
                <span key={hour} aria-hidden className="pointer-events-none absolute inset-x-0 border-t border-slate-100 dark:border-slate-800" style={{ top: hour * HOUR_PX }} />
              ))}
              {gpus.map((gpu, column) => (
                <div
                  key={gpu.uuid}
                  data-testid={`week-cell-${day}-${unitRef(gpu)}`}
                  aria-label={`${unitName(gpu)}, ${formatDay(start)}: drag over free time to book it`}
                  className="relative flex-1 cursor-copy touch-none border-l border-slate-100 first:border-l-0 dark:border-slate-800/60"
                  onPointerDown={(event) => {
                    if (event.button !== 0) return;
                    const slot = slotAtPointer(event, day);
                    event.currentTarget.setPointerCapture(event.pointerId);
                    dragRef.current = { day, gpu: column, fromSlot: slot, toSlot: slot };
                    setDrag(dragRef.current);
                  }}
                  onPointerMove={(event) => {
                    const current = dragRef.current;
                    if (!current || current.day !== day || current.gpu !== column) return;
                    const slot = slotAtPointer(event, day);
                    if (slot === current.toSlot) return;
                    dragRef.current = { ...current, toSlot: slot };
                    setDrag(dragRef.current);
                  }}
                  onPointerUp={finish}
                  onPointerCancel={() => {
                    dragRef.current = null;
                    setDrag(null);
                  }}
                >
                  {bookings
                    .filter((booking) => bookingTakesUnit(booking, gpu))
                    .map((booking) => {
                      const place = spanInDay({ startMs: Date.parse(booking.startsAt), endMs: Date.parse(booking.endsAt) }, start, end);
                      if (!place) return null;
                      const who = personName(booking.bookedBy, everyone);
                      const label = `${who}: ${purposeWithPart(booking.purpose, booking.multiNode)}, ${formatWhen(booking.startsAt, serverNow)} – ${formatWhen(booking.endsAt, serverNow)}`;
                      return (
                        <div
                          key={booking.reservationId}
                          data-testid="week-booking"
                          title={label}
                          aria-label={label}
                          onPointerDown={(event) => event.stopPropagation()}
                          className={`absolute inset-x-px z-[2] overflow-hidden rounded-sm text-[11px] leading-tight font-medium text-slate-950 ${gpus.length > 4 ? "px-0" : "px-1"} ${PALETTE_FILL_CLASS} ${booking.status === "booked" ? "" : "opacity-45"}`}
                          style={{ top: `${place.top * 100}%`, height: `${place.height * 100}%`, ...paletteStyle(colourOf(booking.bookedBy.id)) } as React.CSSProperties}
                        >
                          {gpus.length <= 4 ? (
                            <>
                              {who}
                              <span className="block truncate font-normal">{purposeWithPart(booking.purpose, booking.multiNode)}</span>
                            </>
                          ) : (
                            // Too narrow for a name: initials, the whole name in the title. Never a block without its person.
                            <span data-testid="week-booking-initials" className="block overflow-hidden text-center text-[10px] tracking-tight">
                              {personInitials(booking.bookedBy, everyone)}
                            </span>
                          )}
                        </div>
                      );
                    })}
                  {slurmBlocksOf(slurm, gpu.uuid).map((block) => {
                    const place = spanInDay({ startMs: Date.parse(block.startsAt), endMs: Date.parse(block.endsAt) }, start, end);
                    if (!place) return null;
                    return (
                      <SlurmBlockBox
                        key={`${block.kind}-${block.id}`}
                        block={block}
                        nowMs={serverNow}
                        compact
                        style={{ left: 1, right: 1, top: `${place.top * 100}%`, height: `${place.height * 100}%`, fontSize: "11px", lineHeight: 1.25, borderRadius: 2 }}
                      />
                    );
                  })}
                  {drag && selection && drag.day === day && drag.gpu === column && (
                    <SelectionBlock selection={selection} start={start} end={end} />
                  )}
                </div>
              ))}
              {nowLine !== null && (
                <span aria-hidden data-testid="week-now" className="pointer-events-none absolute inset-x-0 z-[3] h-0.5 bg-red-500" style={{ top: `${nowLine * 100}%` }} />
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
}

/** The height of the day heads that stay at the top of the scrolling week. */
function stickyHeadHeight(box: HTMLElement): number {
  return box.querySelector<HTMLElement>("[data-week-head]")?.offsetHeight ?? 0;
}

function SelectionBlock({ selection, start, end }: { selection: Span; start: number; end: number }) {
  const place = spanInDay(selection, start, end);
  if (!place) return null;
  return (
    <div
      data-testid="week-selection"
      className="pointer-events-none absolute inset-x-px z-[4] rounded-sm border-2 border-sky-600 bg-sky-500/25 px-1 text-[11px] font-semibold text-sky-950 dark:text-sky-100"
      style={{ top: `${place.top * 100}%`, height: `${place.height * 100}%` }}
    >
      {formatClock(selection.startMs)}–{formatClock(selection.endMs)}
    </div>
  );
}
