"use client";

import { useState, useSyncExternalStore, type FormEvent } from "react";
import { apiRequest } from "@/lib/api-client";
import { browserTimeZone } from "@/lib/format/local-time";
import { Field, FormAlert, inputClass } from "@/components/forms/field";
import { buttonClass } from "@/components/ui/button-styles";

const noSubscription = () => () => {};
const BROWSER = "";

/** Every zone the browser knows, "Africa/Abidjan" … "UTC". */
function zones(): string[] {
  const supported = (Intl as { supportedValuesOf?: (key: "timeZone") => string[] }).supportedValuesOf?.("timeZone") ?? [];
  return supported.includes("UTC") ? supported : [...supported, "UTC"];
}

/**
 * The person's time zone for every page (lib/format/local-time.ts): their
 * browser's by default, or one they choose (a laptop set to the wrong
 * zone, or someone who plans in the lab's zone while away).
 */
export function TimeZoneForm({ initial }: { initial: string | null }) {
  const [value, setValue] = useState(initial ?? BROWSER);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const browser = useSyncExternalStore(noSubscription, browserTimeZone, () => null);
  const options = useSyncExternalStore(noSubscription, zonesOnce, () => EMPTY);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setError(null);
    setSaved(false);
    const result = await apiRequest<{ timeZone: string | null }>("PATCH", "/api/v1/me", { timeZone: value === BROWSER ? null : value });
    setPending(false);
    if (!result.ok) return setError(result.error.fields?.timeZone ?? result.error.message);
    setSaved(true);
    // Every time on the page is written again in the new zone.
    window.location.reload();
  }

  return (
    <form id="time-zone" aria-label="Time zone" onSubmit={submit} className="space-y-3 rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900">
      <h2 className="text-base font-semibold">Time zone</h2>
      {error && <FormAlert>{error}</FormAlert>}
      <Field label="Show times in" hint="Every page shows its times in this zone and says which it is.">
        {(props) => (
          <select {...props} value={value} onChange={(event) => setValue(event.target.value)} className={`${inputClass} max-w-full`}>
            <option value={BROWSER}>{browser ? `This browser's zone (${browser})` : "This browser's zone"}</option>
            {value !== BROWSER && !options.includes(value) && <option value={value}>{value}</option>}
            {options.map((zone) => (
              <option key={zone} value={zone}>
                {zone.replaceAll("_", " ")}
              </option>
            ))}
          </select>
        )}
      </Field>
      <div className="flex items-center gap-3">
        <button type="submit" disabled={pending} className={buttonClass()}>
          {pending ? "Saving…" : "Save time zone"}
        </button>
        {saved && <span className="text-sm text-emerald-700 dark:text-emerald-300">Saved</span>}
      </div>
    </form>
  );
}

const EMPTY: string[] = [];
let cachedZones: string[] | null = null;
function zonesOnce(): string[] {
  cachedZones ??= zones();
  return cachedZones;
}
