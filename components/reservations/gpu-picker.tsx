"use client";

import type { LiveBooking, LiveGpu } from "@/lib/live";
import type { BookableHost } from "@/lib/reservation-types";
import { formatGiB } from "@/lib/format";
import { formatWhen } from "@/lib/local-time";
import { rangesOverlap } from "@/lib/reservation-state";

/** The booking that holds a GPU at some instant of [startMs, endMs), if any. */
export function bookingInWindow(bookings: LiveBooking[], uuid: string, startMs: number, endMs: number): LiveBooking | null {
  for (const booking of bookings) {
    if (!booking.gpus.some((gpu) => gpu.uuid === uuid)) continue;
    if (rangesOverlap(startMs, endMs, Date.parse(booking.startsAt), Date.parse(booking.endsAt))) return booking;
  }
  return null;
}

interface GpuPickerProps {
  host: BookableHost;
  selected: number[];
  onToggle: (index: number) => void;
  live: Record<string, LiveGpu>;
  bookings: LiveBooking[];
  window: { startMs: number; endMs: number } | null;
  nowMs: number;
  describedBy?: string;
  invalid?: boolean;
}

/**
 * The GPUs of one host as toggles. A GPU booked by someone during the
 * chosen time cannot be picked and says by whom until when; free ones
 * show their free memory now.
 */
export function GpuPicker({ host, selected, onToggle, live, bookings, window, nowMs, describedBy, invalid }: GpuPickerProps) {
  return (
    <ul role="list" aria-describedby={describedBy} className="grid grid-cols-2 gap-2 sm:grid-cols-4" data-invalid={invalid || undefined}>
      {host.gpus.map((gpu) => {
        const reading = live[gpu.uuid];
        const taken = window ? bookingInWindow(bookings, gpu.uuid, window.startMs, window.endMs) : null;
        const pressed = selected.includes(gpu.index);
        const free = reading && reading.memoryTotalMiB !== null && reading.memoryUsedMiB !== null ? reading.memoryTotalMiB - reading.memoryUsedMiB : null;
        const status = taken
          ? `booked by ${taken.holder.username} until ${nowMs ? formatWhen(taken.endsAt, nowMs) : taken.endsAt}`
          : free !== null
            ? `free, ${formatGiB(free)} memory free now`
            : "free";
        return (
          <li key={gpu.uuid}>
            <button
              type="button"
              aria-pressed={pressed}
              disabled={Boolean(taken) && !pressed}
              aria-label={`GPU ${gpu.index}, ${status}`}
              onClick={() => onToggle(gpu.index)}
              className={`flex h-full w-full flex-col items-start gap-1 rounded-lg border p-3 text-left text-sm transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500 disabled:cursor-not-allowed ${
                pressed
                  ? "border-sky-500 bg-sky-50 ring-2 ring-sky-500/40 dark:border-sky-400 dark:bg-sky-950"
                  : taken
                    ? "border-slate-200 bg-slate-100 text-slate-500 dark:border-slate-800 dark:bg-slate-900/60 dark:text-slate-400"
                    : "border-emerald-300 bg-white hover:border-emerald-500 dark:border-emerald-800 dark:bg-slate-900 dark:hover:border-emerald-600"
              }`}
            >
              <span className="flex w-full items-center justify-between gap-2">
                <span className="font-semibold">GPU {gpu.index}</span>
                <span
                  aria-hidden
                  className={`size-2.5 rounded-full ${pressed ? "bg-sky-500" : taken ? "bg-slate-400" : "bg-free"}`}
                />
              </span>
              <span className="truncate text-xs text-slate-500 dark:text-slate-400" title={gpu.name}>
                {gpu.name.replace(/^NVIDIA /, "")}
              </span>
              <span className={`text-xs ${taken ? "" : "text-emerald-700 dark:text-emerald-400"}`}>
                {taken ? `${taken.holder.username} until ${nowMs ? formatWhen(taken.endsAt, nowMs) : ""}` : free !== null ? `${formatGiB(free)} free` : "free"}
              </span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}
