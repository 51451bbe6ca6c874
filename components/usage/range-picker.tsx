"use client";

import { useId, useState, useSyncExternalStore } from "react";
import { PRESET_LABEL, RANGE_PRESETS, type RangeChoice } from "@/lib/domain/usage-range";
import { fromLocalInput, toLocalInput } from "@/lib/format/local-time";

/** A datetime-local value as ms, or null (lib/format/local-time.ts answers ISO). */
function inputMs(value: string): number | null {
  const iso = fromLocalInput(value);
  return iso ? Date.parse(iso) : null;
}

export interface RangeValue {
  choice: RangeChoice;
  fromMs: number;
  toMs: number;
}

export type RangeChange = { choice: Exclude<RangeChoice, "custom"> } | { choice: "custom"; fromMs: number; toMs: number };

const noSubscription = () => () => {};

/** True in the browser after hydration: local times differ between server and viewer. */
export function useMounted(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

/**
 * 1 h · 24 h · 7 d · 30 d · Custom. Controlled: the usage page keeps the
 * range in its URL, the GPU page in its state.
 */
export function RangePicker({ value, onChange, pending = false }: { value: RangeValue; onChange: (next: RangeChange) => void; pending?: boolean }) {
  const [customOpen, setCustomOpen] = useState(value.choice === "custom");
  const mounted = useMounted();
  const id = useId();
  const [from, setFrom] = useState<string | null>(null);
  const [to, setTo] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const fromValue = from ?? (mounted ? toLocalInput(value.fromMs) : "");
  const toValue = to ?? (mounted ? toLocalInput(value.toMs) : "");

  function apply(event: React.FormEvent) {
    event.preventDefault();
    const fromMs = inputMs(fromValue);
    const toMs = inputMs(toValue);
    if (fromMs === null || toMs === null) return setError("Enter both times");
    if (toMs <= fromMs) return setError("The end must be after the start");
    setError(null);
    onChange({ choice: "custom", fromMs, toMs });
  }

  const button = (active: boolean) =>
    `rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-sky-500 ${
      active
        ? "bg-white text-slate-900 shadow-sm dark:bg-slate-700 dark:text-white"
        : "text-slate-600 hover:text-slate-900 dark:text-slate-300 dark:hover:text-white"
    }`;

  return (
    <div className="flex flex-wrap items-center gap-3" aria-busy={pending}>
      <div role="group" aria-label="Time range" className="inline-flex rounded-lg bg-slate-100 p-1 dark:bg-slate-800">
        {RANGE_PRESETS.map((preset) => (
          <button
            key={preset}
            type="button"
            aria-pressed={value.choice === preset}
            className={button(value.choice === preset)}
            onClick={() => {
              setCustomOpen(false);
              onChange({ choice: preset });
            }}
          >
            {PRESET_LABEL[preset]}
          </button>
        ))}
        <button
          type="button"
          aria-pressed={value.choice === "custom"}
          aria-expanded={customOpen}
          aria-controls={`${id}-custom`}
          className={button(value.choice === "custom" || customOpen)}
          onClick={() => setCustomOpen((open) => !open)}
        >
          {PRESET_LABEL.custom}
        </button>
      </div>
      {customOpen && (
        <form id={`${id}-custom`} onSubmit={apply} className="flex flex-wrap items-end gap-2" noValidate>
          <label className="flex flex-col text-xs text-slate-600 dark:text-slate-400">
            From
            <input
              type="datetime-local"
              value={fromValue}
              onChange={(event) => setFrom(event.target.value)}
              className="mt-0.5 rounded-md border border-slate-300 bg-white px-2 py-1 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100"
            />
          </label>
          <label className="flex flex-col text-xs text-slate-600 dark:text-slate-400">
            To
            <input
              type="datetime-local"
              value={toValue}
              onChange={(event) => setTo(event.target.value)}
              className="mt-0.5 rounded-md border border-slate-300 bg-white px-2 py-1 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100"
            />
          </label>
          <button
            type="submit"
            className="rounded-md bg-sky-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-sky-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500 dark:bg-sky-500 dark:text-slate-950"
          >
            Apply
          </button>
          {error && (
            <p role="alert" className="w-full text-xs text-red-700 dark:text-red-300">
              {error}
            </p>
          )}
        </form>
      )}
    </div>
  );
}
