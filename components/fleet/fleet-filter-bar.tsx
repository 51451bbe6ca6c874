"use client";

import { useId } from "react";
import { GPU_STATE_LABELS, GPU_STATES } from "@/lib/domain/attribution";
import type { AvailabilityCounts } from "@/lib/domain/gpu-availability";
import { unitNoun, type UnitCount } from "@/lib/domain/unit-count";
import { EMPTY_FLEET_FILTER, isFilterActive, type FleetFilter } from "@/lib/live/fleet-filter";
import type { NamedPerson } from "@/lib/format/person-name";
import { personNames } from "@/lib/format/person-name";
import { controlClass } from "@/components/forms/field";
import { buttonClass } from "@/components/ui/button-styles";
import { STATE_SWATCHES } from "@/components/ui/gpu-state-colours";
import type { FleetLayout } from "@/components/fleet/fleet-layout-choice";

interface FleetFilterBarProps {
  filter: FleetFilter;
  onChange: (filter: FleetFilter) => void;
  choices: { hosts: string[]; models: string[]; people: NamedPerson[] };
  /** GPUs by state among those the other criteria keep: each state's button says what it would show. */
  counts: AvailabilityCounts;
  shown: number;
  /** The fleet's one count (lib/domain/unit-count.ts): the total is its units. */
  units: UnitCount;
  layout: FleetLayout;
  onLayout: (layout: FleetLayout) => void;
}

const selectClass = `${controlClass} h-9 max-w-full min-w-0 py-1`;

/** Find and narrow the fleet: every criterion lives in the URL (the page writes it), so a link shows the same view. */
export function FleetFilterBar({ filter, onChange, choices, counts, shown, units, layout, onLayout }: FleetFilterBarProps) {
  const total = units.units;
  const set = (part: Partial<FleetFilter>) => onChange({ ...filter, ...part });
  const names = personNames(choices.people);
  const active = isFilterActive(filter);

  return (
    <section aria-label="Find GPUs" className="space-y-3">
      <div className="flex flex-wrap items-end gap-2">
        <label className="flex min-w-0 flex-[2_1_14rem] flex-col gap-1 text-xs text-slate-600 dark:text-slate-300">
          Search
          <input
            type="search"
            value={filter.text}
            maxLength={200}
            placeholder="Host, GPU, person or command"
            onChange={(event) => set({ text: event.target.value })}
            className={`${controlClass} h-9 py-1`}
          />
        </label>
        <FilterSelect label="Host" value={filter.host} options={choices.hosts.map((host) => [host, host])} onChange={(host) => set({ host })} />
        <FilterSelect label="Model" value={filter.model} options={choices.models.map((model) => [model, model])} onChange={(model) => set({ model })} />
        <FilterSelect
          label="Person"
          value={filter.person}
          options={choices.people.map((person) => [person.username, names.get(person.username) ?? person.username])}
          onChange={(person) => set({ person })}
        />
        <label className="flex w-28 flex-col gap-1 text-xs text-slate-600 dark:text-slate-300">
          Free memory ≥ GiB
          <input
            type="number"
            inputMode="numeric"
            min={0}
            max={100000}
            value={filter.minFreeGiB ?? ""}
            onChange={(event) => {
              const value = event.target.valueAsNumber;
              set({ minFreeGiB: Number.isFinite(value) && value >= 0 ? value : null });
            }}
            className={`${controlClass} h-9 py-1`}
          />
        </label>
        <div role="group" aria-label="Layout" className="ml-auto flex rounded-md shadow-sm">
          {(["cards", "dense"] as const).map((choice) => (
            <button
              key={choice}
              type="button"
              aria-pressed={layout === choice}
              onClick={() => onLayout(choice)}
              className={`h-9 border px-3 text-sm first:rounded-l-md last:rounded-r-md focus-visible:outline-2 focus-visible:outline-sky-500 ${
                layout === choice
                  ? "border-sky-600 bg-sky-600 text-white dark:border-sky-500 dark:bg-sky-500 dark:text-slate-950"
                  : "border-slate-300 bg-white text-slate-700 hover:bg-slate-50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-200"
              }`}
            >
              {choice === "cards" ? "Cards" : "Dense"}
            </button>
          ))}
        </div>
      </div>

      <div className="flex flex-wrap items-center gap-2">
        <ul role="list" aria-label="GPUs by state" className="flex flex-wrap gap-1.5">
          {GPU_STATES.filter((state) => counts.byState[state] > 0 || filter.state === state).map((state) => {
            const pressed = filter.state === state;
            return (
              <li key={state}>
                <button
                  type="button"
                  aria-pressed={pressed}
                  data-testid="state-count"
                  data-state={state}
                  onClick={() => set({ state: pressed ? null : state })}
                  className={`inline-flex h-8 items-center gap-1.5 rounded-full border px-3 text-sm focus-visible:outline-2 focus-visible:outline-sky-500 ${
                    pressed
                      ? "border-sky-600 bg-sky-50 font-medium text-sky-900 dark:border-sky-400 dark:bg-sky-950 dark:text-sky-100"
                      : "border-slate-300 bg-white text-slate-700 hover:bg-slate-50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-200 dark:hover:bg-slate-800"
                  }`}
                >
                  <span aria-hidden className={`size-2.5 rounded-full ${STATE_SWATCHES[state]}`} />
                  {GPU_STATE_LABELS[state]}
                  <span className="font-semibold tabular-nums">{counts.byState[state]}</span>
                </button>
              </li>
            );
          })}
        </ul>
        <p data-testid="filter-shown" data-shown={shown} className="ml-auto text-sm text-slate-600 dark:text-slate-300" aria-live="polite">
          {active ? `${shown} of ${total} ${unitNoun(units, total)} shown` : `${total} ${unitNoun(units, total)}`}
        </p>
        {active && (
          <button type="button" onClick={() => onChange(EMPTY_FLEET_FILTER)} className={buttonClass("ghost", "sm")}>
            Clear filters
          </button>
        )}
      </div>
    </section>
  );
}

function FilterSelect({ label, value, options, onChange }: { label: string; value: string | null; options: [string, string][]; onChange: (value: string | null) => void }) {
  const id = useId();
  // A value from a link that the fleet no longer has stays selectable, so the page says what it filters by.
  const all = value && !options.some(([option]) => option === value) ? [...options, [value, value] as [string, string]] : options;
  return (
    <div className="flex min-w-0 flex-[1_1_9rem] flex-col gap-1 text-xs text-slate-600 dark:text-slate-300">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value ?? ""} onChange={(event) => onChange(event.target.value || null)} className={selectClass}>
        <option value="">Any</option>
        {all.map(([option, text]) => (
          <option key={option} value={option}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}
