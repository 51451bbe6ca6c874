"use client";

import { useState, type FormEvent } from "react";
import { ALERT_KINDS, ALERT_KIND_LABELS, type AlertKind, type WebhookFormat, type WebhookView } from "@/lib/domain/alerts";
import { apiRequest } from "@/lib/api-client";
import { Field, FormAlert, inputClass } from "@/components/forms/field";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button-styles";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import * as t from "@/components/ui/table-styles";

interface WebhookManagerProps {
  scope: "admin" | "personal";
  initialWebhooks: WebhookView[];
  /** Called after a test message was queued, so a log on the same page can look again. */
  onTested?: () => void;
}

const FORMAT_LABELS: Record<WebhookFormat, string> = { slack: "Slack-compatible", json: "JSON" };

/**
 * Webhooks for alerts: admins' fleet-wide ones (per alert kind) or a
 * person's own (alerts about their bookings). Add, pause, test, remove.
 */
export function WebhookManager({ scope, initialWebhooks, onTested }: WebhookManagerProps) {
  const [webhooks, setWebhooks] = useState(initialWebhooks);
  const [url, setUrl] = useState("");
  const [format, setFormat] = useState<WebhookFormat>("slack");
  const [kinds, setKinds] = useState<AlertKind[]>([]);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [removing, setRemoving] = useState<WebhookView | null>(null);
  const [rowError, setRowError] = useState<string | null>(null);

  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    setFields({});
    setSaving(true);
    const result = await apiRequest<WebhookView>("POST", "/api/v1/webhooks", { url, format, kinds, scope });
    setSaving(false);
    if (!result.ok) {
      if (result.error.fields) setFields(result.error.fields);
      else setFormError(result.error.message);
      return;
    }
    setWebhooks((current) => [...current, result.data]);
    setUrl("");
    setKinds([]);
  }

  async function toggle(webhook: WebhookView) {
    setRowError(null);
    const result = await apiRequest<WebhookView>("PATCH", `/api/v1/webhooks/${encodeURIComponent(webhook.id)}`, { enabled: !webhook.enabled });
    if (!result.ok) return setRowError(result.error.message);
    setWebhooks((current) => current.map((row) => (row.id === webhook.id ? result.data : row)));
  }

  async function test(webhook: WebhookView) {
    setRowError(null);
    const result = await apiRequest<{ deliveryId: string }>("POST", `/api/v1/webhooks/${encodeURIComponent(webhook.id)}/test`);
    if (!result.ok) return setRowError(result.error.message);
    setNotice("Test message queued: its outcome shows in the delivery log.");
    onTested?.();
  }

  async function remove() {
    if (!removing) return;
    const result = await apiRequest<null>("DELETE", `/api/v1/webhooks/${encodeURIComponent(removing.id)}`);
    if (!result.ok && result.error.status !== 404) return setRowError(result.error.message);
    setWebhooks((current) => current.filter((row) => row.id !== removing.id));
    setRemoving(null);
  }

  const headingId = `webhooks-${scope}`;
  return (
    <div className="space-y-4">
      <form onSubmit={add} noValidate aria-label="Add a webhook" className="space-y-4 rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900">
        <h2 className="text-base font-semibold">Add a webhook</h2>
        <div className="flex flex-wrap items-start gap-3">
          <Field label="URL" error={fields.url} hint="Where gpudesk POSTs, e.g. a Slack or Mattermost incoming webhook." className="min-w-0 flex-1 basis-80">
            {(control) => (
              <input {...control} name="url" type="url" value={url} maxLength={2000} autoComplete="off" spellCheck={false} onChange={(event) => setUrl(event.target.value)} className={inputClass} />
            )}
          </Field>
          <Field label="Format" error={fields.format} className="w-48">
            {(control) => (
              <select {...control} name="format" value={format} onChange={(event) => setFormat(event.target.value as WebhookFormat)} className={inputClass}>
                <option value="slack">{FORMAT_LABELS.slack}</option>
                <option value="json">{FORMAT_LABELS.json}</option>
              </select>
            )}
          </Field>
        </div>
        <fieldset>
          <legend className="mb-1 text-sm font-medium">Alert kinds</legend>
          <p className="mb-2 text-xs text-slate-500 dark:text-slate-400">
            {scope === "personal" ? "Only alerts about your own bookings are sent. " : ""}None ticked: every kind.
          </p>
          <div className="flex flex-wrap gap-x-4 gap-y-2">
            {ALERT_KINDS.map((kind) => (
              <label key={kind} className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  className="size-4"
                  checked={kinds.includes(kind)}
                  onChange={(event) => setKinds((current) => (event.target.checked ? [...current, kind] : current.filter((entry) => entry !== kind)))}
                />
                {ALERT_KIND_LABELS[kind]}
              </label>
            ))}
          </div>
        </fieldset>
        {formError && <FormAlert>{formError}</FormAlert>}
        <button type="submit" disabled={saving} className={buttonClass("primary")}>
          {saving ? "Adding…" : "Add webhook"}
        </button>
      </form>

      <section aria-labelledby={headingId} className="space-y-3">
        <h2 id={headingId} className="text-base font-semibold">
          {scope === "admin" ? "Fleet-wide webhooks" : "Your webhooks"}
        </h2>
        {notice && (
          <p role="status" className="text-sm text-emerald-800 dark:text-emerald-300">
            {notice}
          </p>
        )}
        {rowError && <FormAlert>{rowError}</FormAlert>}
        {webhooks.length === 0 ? (
          <p className="rounded-xl border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-500 dark:border-slate-700 dark:text-slate-400">
            No webhook yet.
          </p>
        ) : (
          <div className={t.tableCard}>
            <table className={`${t.table} min-w-[40rem]`} aria-labelledby={headingId}>
              <thead>
                <tr className={t.headRow}>
                  <th scope="col" className={t.th}>URL</th>
                  <th scope="col" className={t.th}>Format</th>
                  <th scope="col" className={t.th}>Kinds</th>
                  <th scope="col" className={t.th}><span className="sr-only">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {webhooks.map((webhook) => (
                  <tr key={webhook.id} className={t.bodyRow}>
                    <td className={`${t.td} max-w-72`}>
                      <span className="block truncate font-mono text-xs" title={webhook.url}>
                        {webhook.url}
                      </span>
                      {!webhook.enabled && (
                        <span className="mt-1 inline-block">
                          <Badge tone="offline">paused</Badge>
                        </span>
                      )}
                    </td>
                    <td className={t.td}>{FORMAT_LABELS[webhook.format]}</td>
                    <td className={`${t.td} text-xs`}>{webhook.kinds.length === 0 ? "All kinds" : webhook.kinds.map((kind) => ALERT_KIND_LABELS[kind]).join(", ")}</td>
                    <td className={`${t.td} text-right whitespace-nowrap`}>
                      <span className="inline-flex gap-2">
                        <button type="button" onClick={() => void test(webhook)} className={buttonClass("secondary", "sm")} aria-label={`Send a test to ${webhook.url}`}>
                          Send test
                        </button>
                        <button type="button" onClick={() => void toggle(webhook)} className={buttonClass("secondary", "sm")}>
                          {webhook.enabled ? "Pause" : "Resume"}
                        </button>
                        <button type="button" onClick={() => setRemoving(webhook)} className={buttonClass("secondary", "sm")} aria-label={`Remove ${webhook.url}`}>
                          Remove
                        </button>
                      </span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <ConfirmDialog
        open={removing !== null}
        title="Remove this webhook?"
        confirmLabel="Remove webhook"
        onConfirm={() => void remove()}
        onCancel={() => setRemoving(null)}
      >
        <p className="text-sm">Its delivery log goes with it. {removing?.url}</p>
      </ConfirmDialog>
    </div>
  );
}
