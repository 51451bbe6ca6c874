"use client";

import { useId } from "react";
import { MAX_WEEKS, type SeriesDay, WEEKDAY_NAMES } from "@/lib/domain/recurrence";
import type { BookingView } from "@/lib/domain/booking-types";
import { controlClass } from "@/components/forms/field";
import { When } from "@/components/bookings/when";
import { BookedActions } from "@/components/bookings/booked-actions";

export interface Repeat {
  on: boolean;
  weekdays: number[];
  weeks: number;
}

export const NO_REPEAT: Repeat = { on: false, weekdays: [1, 2, 3, 4, 5], weeks: 4 };

/** Monday first, as a week reads in most of the world's calendars. */
const ORDER = [1, 2, 3, 4, 5, 6, 0];

/** "Repeat weekly on Mon–Fri for N weeks": each day of the series is booked and checked on its own. */
export function RepeatFields({ repeat, onChange, preview, nowMs, maxAdvanceDays }: { repeat: Repeat; onChange: (repeat: Repeat) => void; preview: SeriesDay[] | null; nowMs: number; maxAdvanceDays: number }) {
  const refused = preview?.filter((day) => day.refusal !== null) ?? [];
  const id = useId();
  const toggleDay = (day: number) =>
    onChange({ ...repeat, weekdays: repeat.weekdays.includes(day) ? repeat.weekdays.filter((entry) => entry !== day) : [...repeat.weekdays, day] });
  return (
    <fieldset className="space-y-3">
      <legend className="sr-only">Repeat</legend>
      <label className="flex items-center gap-2 text-sm font-medium">
        <input type="checkbox" checked={repeat.on} onChange={(event) => onChange({ ...repeat, on: event.target.checked })} className="size-4 rounded border-slate-300" />
        Repeat weekly
      </label>
      {repeat.on && (
        <div className="space-y-3 pl-6">
          <div role="group" aria-label="Weekdays" className="flex flex-wrap gap-1.5">
            {ORDER.map((day) => (
              <label key={day} className="flex items-center gap-1 rounded-md border border-slate-300 px-2 py-1 text-sm dark:border-slate-700">
                <input type="checkbox" checked={repeat.weekdays.includes(day)} onChange={() => toggleDay(day)} className="size-3.5" />
                {WEEKDAY_NAMES[day]}
              </label>
            ))}
          </div>
          <div className="flex items-center gap-2 text-sm">
            <label htmlFor={`${id}-weeks`}>For</label>
            <input
              id={`${id}-weeks`}
              type="number"
              min={1}
              max={MAX_WEEKS}
              value={repeat.weeks}
              onChange={(event) => onChange({ ...repeat, weeks: Math.min(MAX_WEEKS, Math.max(1, Math.round(event.target.valueAsNumber) || 1)) })}
              className={`${controlClass} h-9 w-20 py-1`}
            />
            <span>weeks (at most {MAX_WEEKS}), at the same time of day as the first.</span>
          </div>
          {repeat.weeks * 7 > maxAdvanceDays && (
            <p className="text-sm text-slate-600 dark:text-slate-400">Bookings can be made at most {maxAdvanceDays} days ahead: later days of the series are refused.</p>
          )}
          {preview && refused.length > 0 && (
            <div role="status" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-700 dark:bg-amber-950/40" data-testid="series-preview">
              <p className="font-medium">
                {refused.length} of {preview.length} days would be refused; the others would be booked:
              </p>
              <ul aria-label="Would be refused" className="mt-1 space-y-0.5">
                {refused.slice(0, 8).map((day) => (
                  <li key={day.startMs} data-testid="series-would-refuse">
                    <When iso={new Date(day.startMs).toISOString()} nowMs={nowMs} />: {day.refusal}
                  </li>
                ))}
                {refused.length > 8 && <li>and {refused.length - 8} more for the same reasons</li>}
              </ul>
            </div>
          )}
        </div>
      )}
    </fieldset>
  );
}

interface SeriesResultProps {
  created: BookingView[];
  refused: { startsAt: string; endsAt: string; message: string }[];
  nowMs: number;
  onAgain: () => void;
}

/** What a series gave: the bookings made, and each occurrence refused with its reason. */
export function SeriesResult({ created, refused, nowMs, onAgain }: SeriesResultProps) {
  return (
    <section aria-labelledby="series-title" className="space-y-4 rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900">
      <h2 id="series-title" className="text-lg font-semibold">
        Booked {created.length} of {created.length + refused.length}
      </h2>
      {refused.length > 0 && (
        <div role="alert" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-700 dark:bg-amber-950/40">
          <p className="font-medium">{refused.length === 1 ? "One day was refused" : `${refused.length} days were refused`}; the others are booked:</p>
          <ul aria-label="Refused" className="mt-1 space-y-0.5">
            {refused.map((entry) => (
              <li key={entry.startsAt} data-testid="series-refused">
                <When iso={entry.startsAt} nowMs={nowMs} /> – <When iso={entry.endsAt} nowMs={nowMs} />: {entry.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      <ul aria-label="Booked" className="space-y-0.5 text-sm">
        {created.map((booking) => (
          <li key={booking.id} data-testid="series-booked">
            <When iso={booking.startsAt} nowMs={nowMs} /> – <When iso={booking.endsAt} nowMs={nowMs} /> · {booking.multiNode
              ? `${booking.multiNode.label} on ${booking.multiNode.parts.map((part) => part.host.name).join(" and ")}`
              : `${booking.host.name} GPU ${booking.gpus.map((gpu) => gpu.index).join(", ")}`}
          </li>
        ))}
      </ul>
      <BookedActions onAgain={onAgain} />
    </section>
  );
}
