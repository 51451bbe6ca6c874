"use client";

import { useState, type FormEvent } from "react";
import { apiRequest } from "@/lib/api-client";
import type { IdleExemptionsAnswer, IdleExemptionView } from "@/lib/domain/idle-exemption-schema";
import { issuesToFields, policySchema } from "@/lib/domain/booking-schema";
import type { PolicyView } from "@/lib/domain/booking-types";
import { Field, FormAlert, inputClass } from "@/components/forms/field";
import { buttonClass } from "@/components/ui/button-styles";

type IdleField = "idleReleaseAfterMinutes" | "idleWarningMinutes" | "idleBelowPct" | "idleKeepsPerBooking";

/** Idle release's rules (beside the booking rules, saved on their own). */
export function IdlePolicyForm({ initial }: { initial: PolicyView }) {
  const [saved, setSaved] = useState(initial);
  const [values, setValues] = useState<Record<IdleField, string>>({
    idleReleaseAfterMinutes: String(initial.idleReleaseAfterMinutes),
    idleWarningMinutes: String(initial.idleWarningMinutes),
    idleBelowPct: String(initial.idleBelowPct),
    idleKeepsPerBooking: String(initial.idleKeepsPerBooking),
  });
  const [reportOnly, setReportOnly] = useState(initial.idleReportOnly);
  const [errors, setErrors] = useState<Partial<Record<IdleField | "_", string>>>({});
  const [pending, setPending] = useState(false);
  const [done, setDone] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setDone(false);
    const number = (text: string) => (text.trim() === "" ? Number.NaN : Number(text));
    // The booking rules go along as they stand now (the PUT takes the whole policy).
    const current = await apiRequest<PolicyView>("GET", "/api/v1/policies");
    const base = current.ok ? current.data : saved;
    const input = {
      maxDurationMinutes: base.maxDurationMinutes,
      maxGpusPerUser: base.maxGpusPerUser,
      maxAdvanceDays: base.maxAdvanceDays,
      idleReleaseAfterMinutes: number(values.idleReleaseAfterMinutes),
      idleWarningMinutes: number(values.idleWarningMinutes),
      idleBelowPct: number(values.idleBelowPct),
      idleKeepsPerBooking: number(values.idleKeepsPerBooking),
      idleReportOnly: reportOnly,
    };
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

  const field = (name: IdleField, label: string, hint: string) => (
    <Field label={label} error={errors[name]} hint={hint}>
      {(control) => (
        <input {...control} type="number" inputMode="numeric" min={0} value={values[name]} onChange={(event) => setValues((current) => ({ ...current, [name]: event.target.value }))} className={inputClass} />
      )}
    </Field>
  );

  return (
    <form onSubmit={submit} noValidate aria-label="Idle release" className="space-y-5 rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900">
      <div>
        <h2 className="text-lg font-semibold tracking-tight">Idle release</h2>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          A booking whose GPUs all stay below the threshold for this long gives them back. Minutes without readings pause the clock; a keep or an extension starts it again. Nothing is killed.
        </p>
      </div>
      {saved.idleOffAfterUpgrade && (
        <p role="note" className="rounded-md bg-sky-50 px-3 py-2 text-sm text-sky-950 dark:bg-sky-950 dark:text-sky-100">
          New in this version: idle release hands back GPUs that sit idle while booked. It is off here because this installation upgraded; set a time (120 minutes is the default for new installations) and save to turn it on, or try it in report-only mode first.
        </p>
      )}
      <div className="grid gap-4 sm:grid-cols-2">
        {field("idleReleaseAfterMinutes", "Release after idle (minutes)", saved.idleReleaseAfterMinutes === 0 ? "0: off (now off)." : "0 turns release off.")}
        {field("idleWarningMinutes", "Warn before the release (minutes)", "The booker is told on every page, in the CLI and by webhook.")}
        {field("idleBelowPct", "Idle below (% utilization)", "Every reading of every GPU of the booking below this.")}
        {field("idleKeepsPerBooking", "Keeps per booking", "How often a booker may say “keep”.")}
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={reportOnly} onChange={(event) => setReportOnly(event.target.checked)} />
        Report only: warn and list what would have been released, release nothing
      </label>
      {errors._ && <FormAlert>{errors._}</FormAlert>}
      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" disabled={pending} className={buttonClass("primary")}>
          {pending ? "Saving…" : "Save idle release"}
        </button>
        <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
          {done ? "Saved. The next check (within a minute) follows these rules." : null}
        </p>
      </div>
    </form>
  );
}

/** The exemptions from idle release (a host, a person, one booking) and what report-only mode would have released. */
export function IdleExemptions({ initial }: { initial: IdleExemptionsAnswer }) {
  const [answer, setAnswer] = useState(initial);
  const [kind, setKind] = useState<IdleExemptionView["kind"]>("host");
  const [subject, setSubject] = useState("");
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);

  const reload = async () => {
    const result = await apiRequest<IdleExemptionsAnswer>("GET", "/api/v1/idle-exemptions");
    if (result.ok) setAnswer(result.data);
  };
  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const result = await apiRequest<IdleExemptionView>("POST", "/api/v1/idle-exemptions", { kind, subject, ...(reason.trim() ? { reason } : {}) });
    if (!result.ok) return setError(Object.values(result.error.fields ?? {})[0] ?? result.error.message);
    setError(null);
    setSubject("");
    setReason("");
    await reload();
  }

  return (
    <section aria-label="Idle release exemptions" className="space-y-4 rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900">
      <h2 className="text-lg font-semibold tracking-tight">Exemptions</h2>
      {answer.exemptions.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">None: every booking follows idle release.</p>
      ) : (
        <ul className="divide-y divide-slate-200 text-sm dark:divide-slate-800">
          {answer.exemptions.map((exemption) => (
            <li key={exemption.id} className="flex items-center gap-3 py-2">
              <span className="flex-1">
                {exemption.kind === "host" ? "Host" : exemption.kind === "person" ? "Person" : "Booking"} <strong>{exemption.label}</strong>
                {exemption.reason ? ` — ${exemption.reason}` : ""}
              </span>
              <button
                type="button"
                className={buttonClass("secondary", "sm")}
                onClick={async () => {
                  const result = await apiRequest("DELETE", `/api/v1/idle-exemptions/${exemption.id}`);
                  if (!result.ok) setError(result.error.message);
                  await reload();
                }}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={add} aria-label="Add an exemption" className="flex flex-wrap items-end gap-2">
        <label className="text-sm">
          <span className="block text-slate-600 dark:text-slate-400">Exempt a</span>
          <select value={kind} onChange={(event) => setKind(event.target.value as IdleExemptionView["kind"])} className={inputClass}>
            <option value="host">host (name)</option>
            <option value="person">person (username)</option>
            <option value="booking">booking (id)</option>
          </select>
        </label>
        <label className="text-sm">
          <span className="block text-slate-600 dark:text-slate-400">Which</span>
          <input value={subject} onChange={(event) => setSubject(event.target.value)} className={inputClass} />
        </label>
        <label className="text-sm">
          <span className="block text-slate-600 dark:text-slate-400">Why (optional)</span>
          <input value={reason} onChange={(event) => setReason(event.target.value)} className={inputClass} />
        </label>
        <button type="submit" className={buttonClass("secondary")}>
          Exempt
        </button>
      </form>
      {error && <FormAlert>{error}</FormAlert>}
      {answer.wouldHaveReleased.length > 0 && (
        <div className="space-y-2">
          <h3 className="font-semibold">Would have been released (report only)</h3>
          <ul className="text-sm">
            {answer.wouldHaveReleased.map((entry) => (
              <li key={`${entry.reservationId}:${entry.idleSince}`}>
                {entry.username ?? "someone"} · {entry.gpuCount} GPU{entry.gpuCount > 1 ? "s" : ""} on {entry.hostName ?? "a host"} · idle since {entry.idleSince.slice(0, 16).replace("T", " ")} UTC
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
