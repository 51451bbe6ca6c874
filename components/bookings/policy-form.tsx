"use client";

import { useState, type FormEvent } from "react";
import { apiRequest } from "@/lib/api-client";
import { formatDurationMinutes } from "@/lib/domain/booking-window";
import { issuesToFields, policySchema } from "@/lib/domain/booking-schema";
import type { PolicyView } from "@/lib/domain/booking-types";
import { Field, FormAlert, inputClass } from "@/components/forms/field";
import { TimeAgo } from "@/components/ui/time-ago";
import { buttonClass } from "@/components/ui/button-styles";

type FieldName = "maxDurationMinutes" | "maxGpusPerUser" | "maxAdvanceDays";

/** The booking rules. The longest booking is edited in hours and sent in minutes. */
export function PolicyForm({ initial }: { initial: PolicyView }) {
  const [saved, setSaved] = useState(initial);
  const [hours, setHours] = useState(String(initial.maxDurationMinutes / 60));
  const [gpus, setGpus] = useState(String(initial.maxGpusPerUser));
  const [days, setDays] = useState(String(initial.maxAdvanceDays));
  const [errors, setErrors] = useState<Partial<Record<FieldName | "_", string>>>({});
  const [pending, setPending] = useState(false);
  const [done, setDone] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setDone(false);
    const number = (text: string) => (text.trim() === "" ? Number.NaN : Number(text));
    const input = { maxDurationMinutes: Math.round(number(hours) * 60), maxGpusPerUser: number(gpus), maxAdvanceDays: number(days) };
    const parsed = policySchema.safeParse(input);
    if (!parsed.success) {
      setErrors(issuesToFields(parsed.error));
      return;
    }
    setPending(true);
    const result = await apiRequest<PolicyView>("PUT", "/api/v1/policies", parsed.data);
    setPending(false);
    if (!result.ok) {
      setErrors(result.error.fields && Object.keys(result.error.fields).length > 0 ? result.error.fields : { _: result.error.message });
      return;
    }
    setSaved(result.data);
    setErrors({});
    setDone(true);
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Booking rules" className="space-y-5 rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900">
      <div className="grid gap-4 sm:grid-cols-3">
        <Field label="Longest booking (hours)" error={errors.maxDurationMinutes} hint={`Now ${formatDurationMinutes(saved.maxDurationMinutes)}; extensions count too.`}>
          {(control) => <input {...control} type="number" inputMode="decimal" min={0.25} step={0.25} value={hours} onChange={(event) => setHours(event.target.value)} className={inputClass} />}
        </Field>
        <Field label="GPUs per person at once" error={errors.maxGpusPerUser} hint="Across all hosts, at any one moment.">
          {(control) => <input {...control} type="number" inputMode="numeric" min={1} value={gpus} onChange={(event) => setGpus(event.target.value)} className={inputClass} />}
        </Field>
        <Field label="Booking ahead (days)" error={errors.maxAdvanceDays} hint="How far in the future a booking may start.">
          {(control) => <input {...control} type="number" inputMode="numeric" min={0} value={days} onChange={(event) => setDays(event.target.value)} className={inputClass} />}
        </Field>
      </div>
      {errors._ && <FormAlert>{errors._}</FormAlert>}
      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" disabled={pending} className={buttonClass("primary")}>
          {pending ? "Saving…" : "Save rules"}
        </button>
        <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
          {done ? "Saved. New bookings and extensions follow these rules; existing bookings stand." : null}
          {!done && saved.updatedAt && (
            <>
              Last changed <TimeAgo iso={saved.updatedAt} /> by {saved.updatedBy?.name ?? "someone"}.
            </>
          )}
        </p>
      </div>
    </form>
  );
}
