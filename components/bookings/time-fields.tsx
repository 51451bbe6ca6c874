"use client";

import { useId } from "react";
import { DURATION_PRESETS, formatDurationMinutes } from "@/lib/domain/booking-window";
import { formatWhen } from "@/lib/format/local-time";
import type { ReserveField, ReserveValues } from "@/components/bookings/reserve-request";
import { inputClass } from "@/components/forms/field";

interface TimeFieldsProps {
  values: ReserveValues;
  errors: Partial<Record<ReserveField, string>>;
  onChange: (patch: Partial<ReserveValues>, clears: ReserveField[]) => void;
  window: { startMs: number; endMs: number } | null;
  nowMs: number;
  maxDurationMinutes: number;
}

const choice = "inline-flex cursor-pointer items-center gap-2 rounded-md border px-3 py-1.5 text-sm has-[:checked]:border-sky-500 has-[:checked]:bg-sky-50 has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-sky-500 dark:has-[:checked]:bg-sky-950 border-slate-300 dark:border-slate-700";

function ErrorText({ id, message }: { id: string; message?: string }) {
  if (!message) return null;
  return (
    <p id={id} className="mt-1 text-sm text-red-700 dark:text-red-300">
      {/[.!?]$/.test(message) ? message : `${message}.`}
    </p>
  );
}

/** When: start now or at a time; for a preset, a number of hours, or until a time. */
export function TimeFields({ values, errors, onChange, window, nowMs, maxDurationMinutes }: TimeFieldsProps) {
  const id = useId();
  const lengthError = values.length === "until" ? (errors.endsAt ?? errors.durationMinutes) : (errors.durationMinutes ?? errors.endsAt);
  return (
    <div className="grid gap-5 sm:grid-cols-2">
      <fieldset aria-describedby={errors.startsAt ? `${id}-start-error` : undefined}>
        <legend className="mb-2 text-sm font-medium">Start</legend>
        <div className="flex flex-wrap items-center gap-2">
          <label className={choice}>
            <input type="radio" name="startMode" className="sr-only" checked={values.startMode === "now"} onChange={() => onChange({ startMode: "now" }, ["startsAt"])} />
            Now
          </label>
          <label className={choice}>
            <input type="radio" name="startMode" className="sr-only" checked={values.startMode === "at"} onChange={() => onChange({ startMode: "at" }, ["startsAt"])} />
            Later
          </label>
        </div>
        {values.startMode === "at" && (
          <div className="mt-2">
            <label htmlFor={`${id}-start`} className="sr-only">
              Start time
            </label>
            <input
              id={`${id}-start`}
              type="datetime-local"
              value={values.startAt}
              aria-invalid={Boolean(errors.startsAt)}
              aria-describedby={errors.startsAt ? `${id}-start-error` : undefined}
              onChange={(event) => onChange({ startAt: event.target.value }, ["startsAt", "endsAt"])}
              className={inputClass}
            />
          </div>
        )}
        <ErrorText id={`${id}-start-error`} message={errors.startsAt} />
      </fieldset>

      <fieldset aria-describedby={lengthError ? `${id}-length-error` : `${id}-length-hint`}>
        <legend className="mb-2 text-sm font-medium">For how long</legend>
        <div className="flex flex-wrap items-center gap-2">
          {DURATION_PRESETS.map((preset) => (
            <label key={preset.id} className={choice}>
              <input type="radio" name="length" className="sr-only" checked={values.length === preset.id} onChange={() => onChange({ length: preset.id }, ["durationMinutes", "endsAt"])} />
              {preset.label}
            </label>
          ))}
          <label className={choice}>
            <input type="radio" name="length" className="sr-only" checked={values.length === "custom"} onChange={() => onChange({ length: "custom" }, ["durationMinutes", "endsAt"])} />
            Hours…
          </label>
          <label className={choice}>
            <input type="radio" name="length" className="sr-only" checked={values.length === "until"} onChange={() => onChange({ length: "until" }, ["durationMinutes", "endsAt"])} />
            Until…
          </label>
        </div>
        {values.length === "custom" && (
          <div className="mt-2 flex items-center gap-2">
            <label htmlFor={`${id}-hours`} className="text-sm">
              Hours
            </label>
            <input
              id={`${id}-hours`}
              type="number"
              inputMode="decimal"
              min={0.25}
              step={0.25}
              value={values.customHours}
              aria-invalid={Boolean(errors.durationMinutes)}
              onChange={(event) => onChange({ customHours: event.target.value }, ["durationMinutes"])}
              className={`${inputClass} max-w-32`}
            />
          </div>
        )}
        {values.length === "until" && (
          <div className="mt-2">
            <label htmlFor={`${id}-end`} className="sr-only">
              End time
            </label>
            <input
              id={`${id}-end`}
              type="datetime-local"
              value={values.endAt}
              aria-invalid={Boolean(errors.endsAt)}
              onChange={(event) => onChange({ endAt: event.target.value }, ["endsAt"])}
              className={inputClass}
            />
          </div>
        )}
        <ErrorText id={`${id}-length-error`} message={lengthError} />
        {!lengthError && (
          <p id={`${id}-length-hint`} className="mt-1 text-xs text-slate-500 dark:text-slate-400">
            {window && nowMs
              ? `From ${formatWhen(window.startMs, nowMs)} until ${formatWhen(window.endMs, nowMs)} (${formatDurationMinutes((window.endMs - window.startMs) / 60_000)}).`
              : " "}{" "}
            At most {formatDurationMinutes(maxDurationMinutes)}.
          </p>
        )}
      </fieldset>
    </div>
  );
}
