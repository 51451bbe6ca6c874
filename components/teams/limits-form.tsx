"use client";

import { type FormEvent, type ReactNode, useState } from "react";
import type { ApiResult } from "@/lib/api-client";
import type { Limits, LimitsInput } from "@/lib/team-schema";
import { Field, FormAlert, inputClass } from "@/components/forms/field";
import { buttonClass } from "@/components/ui/button-styles";

const numberOrNull = (text: string) => (text.trim() === "" ? null : Number(text));

function fieldsOf(limits: Limits | null) {
  return {
    maxGpus: limits?.maxGpus?.toString() ?? "",
    gpuHoursPer7Days: limits?.gpuHoursPer7Days?.toString() ?? "",
    maxBookingMinutes: limits?.maxBookingMinutes?.toString() ?? "",
    hosts: limits?.hosts ? JSON.stringify(limits.hosts) : "",
  };
}

interface LimitsFormProps {
  /** The form's accessible name: "Limits of vision", "Own limits of ana". */
  label: string;
  title: string;
  limits: Limits | null;
  /** Sends `{ limits }` (PATCH a team, PUT a person's own). */
  save: (body: { limits: LimitsInput }) => Promise<ApiResult<unknown>>;
  /** More buttons on the form's last line (a team's "Delete team"). */
  children?: ReactNode;
}

/**
 * The four limits as a form, for a team (Admin → Teams) and for a person's
 * own limits, which override their team's for them. Empty fields: no limit.
 */
export function LimitsForm({ label, title, limits: initial, save, children }: LimitsFormProps) {
  const [limits, setLimits] = useState(() => fieldsOf(initial));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setErrors({});
    setError(null);
    setSaved(false);
    let hosts: LimitsInput["hosts"] = null;
    if (limits.hosts.trim()) {
      try {
        hosts = JSON.parse(limits.hosts);
      } catch {
        return setErrors({ hosts: 'Write the hosts as JSON, e.g. [{"host": "vision-*", "windows": [{"days": [1,2,3,4,5]}]}, {"host": "*"}]' });
      }
    }
    const result = await save({ limits: { maxGpus: numberOrNull(limits.maxGpus), gpuHoursPer7Days: numberOrNull(limits.gpuHoursPer7Days), maxBookingMinutes: numberOrNull(limits.maxBookingMinutes), hosts } });
    if (!result.ok) {
      const fields = Object.fromEntries(Object.entries(result.error.fields ?? {}).map(([key, message]) => [key.replace(/^limits\./, "").split(".")[0], message]));
      setErrors(fields);
      if (Object.keys(fields).length === 0) setError(result.error.message);
      return;
    }
    setSaved(true);
  }

  const set = (field: keyof typeof limits) => (event: { target: { value: string } }) => setLimits((current) => ({ ...current, [field]: event.target.value }));

  return (
    <form onSubmit={submit} className="space-y-3" aria-label={label}>
      <h3 className="text-sm font-semibold">{title}</h3>
      {error && <FormAlert>{error}</FormAlert>}
      <div className="grid gap-3 sm:grid-cols-3">
        <Field label="GPUs at once" error={errors.maxGpus}>
          {(control) => <input {...control} className={inputClass} type="number" min="0" value={limits.maxGpus} onChange={set("maxGpus")} />}
        </Field>
        <Field label="GPU-hours per 7 days" error={errors.gpuHoursPer7Days}>
          {(control) => <input {...control} className={inputClass} type="number" min="0" step="any" value={limits.gpuHoursPer7Days} onChange={set("gpuHoursPer7Days")} />}
        </Field>
        <Field label="Longest booking (minutes)" error={errors.maxBookingMinutes}>
          {(control) => <input {...control} className={inputClass} type="number" min="1" value={limits.maxBookingMinutes} onChange={set("maxBookingMinutes")} />}
        </Field>
      </div>
      <Field
        label="Hosts (JSON)"
        error={errors.hosts}
        hint={'The first rule whose host pattern matches decides; e.g. [{"host": "vision-*", "windows": [{"days": [0, 6]}]}, {"host": "*"}] gives the vision servers only at weekends. Days: 0 Sunday … 6 Saturday; times in UTC unless "timeZone" is set.'}
      >
        {(control) => <textarea {...control} className={`${inputClass} font-mono`} rows={2} value={limits.hosts} onChange={set("hosts")} />}
      </Field>
      <div className="flex items-center gap-3">
        <button type="submit" className={buttonClass()}>
          Save limits
        </button>
        {saved && <span role="status" className="text-sm text-emerald-700 dark:text-emerald-300">Saved.</span>}
        {children}
      </div>
    </form>
  );
}
