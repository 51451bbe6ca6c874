"use client";

import { useState, type FormEvent } from "react";
import { apiRequest } from "@/lib/api-client";
import type { NotificationSettingsView } from "@/lib/domain/person-notices";
import { Field, FormAlert, inputClass } from "@/components/forms/field";
import { buttonClass } from "@/components/ui/button-styles";
import * as t from "@/components/ui/table-styles";

/** Settings → Notifications: my mail address, and per event whether it reaches me on the page and by mail. */
export function NotificationSettings({ initial }: { initial: NotificationSettingsView }) {
  const [email, setEmail] = useState(initial.email ?? "");
  const [preferences, setPreferences] = useState(initial.preferences);
  const [emailError, setEmailError] = useState<string | undefined>();
  const [formError, setFormError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [saved, setSaved] = useState(false);

  const toggle = (event: string, channel: "onPage" | "byMail") => {
    setSaved(false);
    setPreferences((current) => current.map((row) => (row.event === event ? { ...row, [channel]: !row[channel] } : row)));
  };

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    setEmailError(undefined);
    setPending(true);
    const result = await apiRequest<NotificationSettingsView>("PATCH", "/api/v1/me/notifications", {
      email: email.trim() === "" ? null : email.trim(),
      preferences: preferences.map(({ event: name, onPage, byMail }) => ({ event: name, onPage, byMail })),
    });
    setPending(false);
    if (!result.ok) {
      if (result.error.fields?.email) setEmailError(result.error.fields.email);
      else setFormError(result.error.message);
      return;
    }
    setPreferences(result.data.preferences);
    setEmail(result.data.email ?? "");
    setSaved(true);
  }

  const wantsMail = preferences.some((row) => row.byMail);
  return (
    <form onSubmit={save} noValidate aria-label="Notification settings" className="space-y-5">
      <div className="rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900">
        <Field label="Mail address" error={emailError} hint="Where mail about your bookings goes. Leave empty for none.">
          {(control) => (
            <input {...control} name="email" type="email" value={email} onChange={(event) => { setEmail(event.target.value); setEmailError(undefined); setSaved(false); }} autoComplete="email" maxLength={254} className={inputClass} />
          )}
        </Field>
        {!initial.mailConfigured && (
          <p className="mt-3 text-sm text-amber-800 dark:text-amber-300">This server sends no mail yet (an admin sets GPUDESK_SMTP_URL); your choices are kept for when it does.</p>
        )}
        {initial.mailConfigured && wantsMail && !email.trim() && (
          <p className="mt-3 text-sm text-amber-800 dark:text-amber-300">Without a mail address, nothing is sent by mail.</p>
        )}
      </div>
      <div className={t.tableCard}>
        <table className={t.table} aria-label="What reaches me">
          <thead>
            <tr className={t.headRow}>
              <th scope="col" className={t.th}>When</th>
              <th scope="col" className={`${t.th} text-center`}>On the page</th>
              <th scope="col" className={`${t.th} text-center`}>By mail</th>
            </tr>
          </thead>
          <tbody>
            {preferences.map((row) => (
              <tr key={row.event} className={t.bodyRow}>
                <td className={t.td}>{row.label}</td>
                <td className={`${t.td} text-center`}>
                  <input type="checkbox" aria-label={`${row.label}: on the page`} checked={row.onPage} onChange={() => toggle(row.event, "onPage")} className="h-4 w-4" />
                </td>
                <td className={`${t.td} text-center`}>
                  <input type="checkbox" aria-label={`${row.label}: by mail`} checked={row.byMail} onChange={() => toggle(row.event, "byMail")} className="h-4 w-4" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="text-sm text-slate-600 dark:text-slate-400">Your personal webhooks (My alert webhooks) hear about all of these as well.</p>
      {formError && <FormAlert>{formError}</FormAlert>}
      <div className="flex items-center gap-3">
        <button type="submit" disabled={pending} className={buttonClass("primary")}>
          {pending ? "Saving…" : "Save"}
        </button>
        {saved && (
          <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">
            Saved.
          </p>
        )}
      </div>
    </form>
  );
}
