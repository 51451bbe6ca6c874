"use client";

import { useId } from "react";
import { WEEKDAYS_SHORT, type HostRuleDraft, type HostRulesDraft, type WindowDraft } from "@/lib/domain/host-rules-draft";
import { Field, fieldErrorText, inputClass } from "@/components/forms/field";
import { buttonClass } from "@/components/ui/button-styles";

interface HostRulesFieldsProps {
  rules: HostRulesDraft;
  onChange: (rules: HostRulesDraft) => void;
  /** The fleet's hosts, offered as the host field's choices (a pattern such as "vision-*" may be typed too). */
  hostNames: string[];
  /** Field errors keyed "hosts.0.windows.1.to" (lib/domain/host-rules-draft.ts), from the form's own check or the server's. */
  errors: Record<string, string>;
}

const NEW_RULE: HostRuleDraft = { host: "", windows: [], timeZone: "" };
const NEW_WINDOW: WindowDraft = { days: [1, 2, 3, 4, 5], from: "", to: "" };

/**
 * Which hosts a team (or a person) may book, and when: "every host", or a
 * list of host rules, each a host or pattern with optional weekly windows.
 * The first rule whose pattern matches decides, as the API says.
 */
export function HostRulesFields({ rules, onChange, hostNames, errors }: HostRulesFieldsProps) {
  const id = useId();
  const listId = `${id}-hosts`;
  const update = (index: number, change: Partial<HostRuleDraft>) => onChange((rules ?? []).map((rule, i) => (i === index ? { ...rule, ...change } : rule)));
  const updateWindow = (index: number, windowIndex: number, change: Partial<WindowDraft>) =>
    update(index, { windows: rules![index].windows.map((window, i) => (i === windowIndex ? { ...window, ...change } : window)) });

  return (
    <fieldset className="space-y-3 rounded-lg border border-slate-200 p-3 dark:border-slate-800">
      <legend className="px-1 text-sm font-medium">Hosts</legend>
      <div className="flex flex-wrap gap-x-5 gap-y-1 text-sm" role="radiogroup" aria-label="Which hosts">
        <label className="flex items-center gap-2">
          <input type="radio" name={`${id}-scope`} checked={rules === null} onChange={() => onChange(null)} /> Every host, any time
        </label>
        <label className="flex items-center gap-2">
          <input type="radio" name={`${id}-scope`} checked={rules !== null} onChange={() => onChange(rules ?? [{ ...NEW_RULE }])} /> Only the hosts below
        </label>
      </div>
      {errors.hosts && <p className="text-sm text-red-700 dark:text-red-300">{errors.hosts}</p>}

      {rules !== null && (
        <>
          <datalist id={listId}>
            {hostNames.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
          {rules.length === 0 && <p className="text-sm text-amber-800 dark:text-amber-200">No host: nothing can be booked. Add a host, or choose every host.</p>}
          <ol className="space-y-3">
            {rules.map((rule, index) => {
              const at = `hosts.${index}`;
              return (
                <li key={index} role="group" aria-label={`Host rule ${index + 1}`} className="space-y-2 rounded-md bg-slate-50 p-3 dark:bg-slate-950/40">
                  <div className="flex flex-wrap items-start gap-3">
                    <Field label="Host or pattern" error={errors[`${at}.host`]} hint="A host, or a pattern: vision-* is every host whose name starts so" className="min-w-48 flex-1">
                      {(control) => <input {...control} className={inputClass} list={listId} value={rule.host} maxLength={128} onChange={(event) => update(index, { host: event.target.value })} />}
                    </Field>
                    <Field label="Time zone" error={errors[`${at}.timeZone`]} hint="Of the windows, e.g. Europe/Berlin; empty: UTC" className="w-48">
                      {(control) => <input {...control} className={inputClass} value={rule.timeZone} maxLength={64} onChange={(event) => update(index, { timeZone: event.target.value })} />}
                    </Field>
                    <button type="button" className={`${buttonClass("ghost", "sm")} sm:mt-6`} onClick={() => onChange(rules.filter((_, i) => i !== index))}>
                      Remove host {index + 1}
                    </button>
                  </div>
                  {rule.windows.length === 0 ? (
                    <p className="text-sm text-slate-600 dark:text-slate-300">Any time.</p>
                  ) : (
                    <ul className="space-y-2">
                      {rule.windows.map((window, windowIndex) => (
                        <WindowFields
                          key={windowIndex}
                          label={`Window ${windowIndex + 1} of host ${index + 1}`}
                          window={window}
                          errors={errors}
                          at={`${at}.windows.${windowIndex}`}
                          onChange={(change) => updateWindow(index, windowIndex, change)}
                          onRemove={() => update(index, { windows: rule.windows.filter((_, i) => i !== windowIndex) })}
                        />
                      ))}
                    </ul>
                  )}
                  <button type="button" className={buttonClass("secondary", "sm")} onClick={() => update(index, { windows: [...rule.windows, { ...NEW_WINDOW }] })}>
                    Add a time window to host {index + 1}
                  </button>
                </li>
              );
            })}
          </ol>
          <button type="button" className={buttonClass("secondary", "sm")} onClick={() => onChange([...rules, { ...NEW_RULE }])}>
            Add a host
          </button>
          <p className="text-xs text-slate-500 dark:text-slate-400">The first host rule whose pattern matches decides; a host no rule names cannot be booked.</p>
        </>
      )}
    </fieldset>
  );
}

interface WindowFieldsProps {
  label: string;
  window: WindowDraft;
  /** This window's place in the errors' keys: "hosts.0.windows.1". */
  at: string;
  errors: Record<string, string>;
  onChange: (change: Partial<WindowDraft>) => void;
  onRemove: () => void;
}

function WindowFields({ label, window, at, errors, onChange, onRemove }: WindowFieldsProps) {
  const daysError = errors[`${at}.days`];
  const toggleDay = (day: number) => onChange({ days: window.days.includes(day) ? window.days.filter((kept) => kept !== day) : [...window.days, day] });
  return (
    <li role="group" aria-label={label} className="flex flex-wrap items-start gap-3">
      <fieldset aria-invalid={Boolean(daysError)}>
        <legend className="mb-1 text-sm font-medium">Days</legend>
        <div className="flex flex-wrap gap-1">
          {WEEKDAYS_SHORT.map((name, day) => (
            <label key={name} className="flex items-center gap-1 rounded border border-slate-300 px-1.5 py-1 text-xs dark:border-slate-700">
              <input type="checkbox" checked={window.days.includes(day)} onChange={() => toggleDay(day)} />
              {name}
            </label>
          ))}
        </div>
        {daysError && <p className="mt-1 text-sm text-red-700 dark:text-red-300">{fieldErrorText("Days", daysError)}</p>}
      </fieldset>
      <Field label="From" error={errors[`${at}.from`]} className="w-32">
        {(control) => <input {...control} type="time" className={inputClass} value={window.from} onChange={(event) => onChange({ from: event.target.value })} />}
      </Field>
      <Field label="To" error={errors[`${at}.to`]} hint="Empty: midnight" className="w-32">
        {(control) => <input {...control} type="time" className={inputClass} value={window.to} onChange={(event) => onChange({ to: event.target.value })} />}
      </Field>
      <button type="button" className={`${buttonClass("ghost", "sm")} sm:mt-6`} onClick={onRemove}>
        Remove window
      </button>
    </li>
  );
}
