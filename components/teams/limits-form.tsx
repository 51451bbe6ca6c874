"use client";

import { type FormEvent, type ReactNode, useState } from "react";
import type { ApiResult } from "@/lib/api-client";
import type { Limits, LimitsInput } from "@/lib/domain/team-schema";
import { draftFromHostRules, hostRulesErrors, hostRulesFromDraft, type HostRulesDraft } from "@/lib/domain/host-rules-draft";
import { Field, FormAlert, inputClass } from "@/components/forms/field";
import { buttonClass } from "@/components/ui/button-styles";
import { HostRulesFields } from "@/components/teams/host-rules-fields";

const numberOrNull = (text: string) => (text.trim() === "" ? null : Number(text));

function fieldsOf(limits: Limits | null) {
  return {
    maxGpus: limits?.maxGpus?.toString() ?? "",
    gpuHoursPer7Days: limits?.gpuHoursPer7Days?.toString() ?? "",
    maxBookingMinutes: limits?.maxBookingMinutes?.toString() ?? "",
  };
}

interface LimitsFormProps {
  /** The form's accessible name: "Limits of vision", "Own limits of ana". */
  label: string;
  title: string;
  limits: Limits | null;
  /** Sends `{ limits }` (PATCH a team, PUT a person's own). */
  save: (body: { limits: LimitsInput }) => Promise<ApiResult<unknown>>;
  /** The fleet's host names, offered in the host rules' host fields. */
  hostNames: string[];
  /** More buttons on the form's last line (a team's "Delete team"). */
  children?: ReactNode;
}

/**
 * The four limits as a form, for a team (Admin → Teams) and for a person's
 * own limits, which override their team's for them. Empty fields: no limit.
 */
export function LimitsForm({ label, title, limits: initial, save, hostNames, children }: LimitsFormProps) {
  const [limits, setLimits] = useState(() => fieldsOf(initial));
  const [hostRules, setHostRules] = useState<HostRulesDraft>(() => draftFromHostRules(initial?.hosts ?? null));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setErrors({});
    setError(null);
    setSaved(false);
    // Checked here by the API's own schema, so that each mistake shows at its field before anything is sent.
    const ruleErrors = hostRulesErrors(hostRules);
    if (Object.keys(ruleErrors).length > 0) return setErrors(ruleErrors);
    const hosts: LimitsInput["hosts"] = hostRulesFromDraft(hostRules);
    const result = await save({ limits: { maxGpus: numberOrNull(limits.maxGpus), gpuHoursPer7Days: numberOrNull(limits.gpuHoursPer7Days), maxBookingMinutes: numberOrNull(limits.maxBookingMinutes), hosts } });
    if (!result.ok) {
      // "limits.hosts.0.host" stays whole (the host rules show errors by place); the numbers' keys are one word.
      const fields = Object.fromEntries(Object.entries(result.error.fields ?? {}).map(([key, message]) => [key.replace(/^limits\./, ""), message]));
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
      <HostRulesFields rules={hostRules} onChange={setHostRules} hostNames={hostNames} errors={errors} />
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
