"use client";

import { useState, type FormEvent } from "react";
import { apiRequest, type Serialized } from "@/lib/api-client";
import type { TokenSummary } from "@/server/auth/tokens";
import { CopyBlock, SecretReveal } from "@/components/forms/secret-reveal";
import { Field, FormAlert, inputClass } from "@/components/forms/field";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button-styles";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import * as t from "@/components/ui/table-styles";
import { TimeAgo } from "@/components/ui/time-ago";

export type TokenRow = Serialized<TokenSummary>;

type Created = { token: string; label: string; origin: string };

/** The signed-in person's API tokens: make one (shown once), see when each was used, revoke. */
export function TokenManager({ initialTokens }: { initialTokens: TokenRow[] }) {
  const [tokens, setTokens] = useState(initialTokens);
  const [label, setLabel] = useState("");
  const [labelError, setLabelError] = useState<string | undefined>();
  const [formError, setFormError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Created | null>(null);
  const [revoking, setRevoking] = useState<TokenRow | null>(null);
  const [revokePending, setRevokePending] = useState(false);
  const [revokeError, setRevokeError] = useState<string | null>(null);

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    if (!label.trim()) {
      setLabelError("is required");
      return;
    }
    setLabelError(undefined);
    setCreating(true);
    const result = await apiRequest<TokenRow & { token: string }>("POST", "/api/v1/tokens", { label });
    setCreating(false);
    if (!result.ok) {
      if (result.error.fields?.label) setLabelError(result.error.fields.label);
      else setFormError(result.error.message);
      return;
    }
    const { token, ...row } = result.data;
    setTokens((current) => [row, ...current]);
    setCreated({ token, label: row.label, origin: window.location.origin });
    setLabel("");
  }

  async function revoke() {
    if (!revoking) return;
    setRevokePending(true);
    setRevokeError(null);
    const result = await apiRequest<null>("DELETE", `/api/v1/tokens/${encodeURIComponent(revoking.id)}`);
    setRevokePending(false);
    // Already gone on the server: the list was stale, and the token does not work either way.
    if (!result.ok && result.error.status !== 404) {
      setRevokeError(result.error.message);
      return;
    }
    const revokedAt = new Date().toISOString();
    setTokens((current) => current.map((row) => (row.id === revoking.id ? { ...row, revokedAt: row.revokedAt ?? revokedAt } : row)));
    setRevoking(null);
  }

  return (
    <div className="space-y-6">
      {created && (
        <SecretReveal title={`Token “${created.label}” created`} label="New token" secret={created.token} onDismiss={() => setCreated(null)}>
          <CopyBlock label="Try it" copyName="Copy command" text={`curl -H "Authorization: Bearer ${created.token}" ${created.origin}/api/v1/me`} />
          {/* The token is pasted at the prompt rather than put on the command line, where shell history would keep it. */}
          <CopyBlock label="Sign the gpudesk CLI in (paste the token when it asks)" copyName="Copy login command" text={`gpudesk login --url ${created.origin}`} />
        </SecretReveal>
      )}

      <form onSubmit={create} noValidate aria-label="Create a token" className="rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900">
        <h2 className="text-base font-semibold">Create a token</h2>
        <p className="mt-1 mb-4 text-sm text-slate-600 dark:text-slate-400">
          Scripts and the command line send it as <code className="text-xs">Authorization: Bearer …</code> and act as you.
        </p>
        <div className="flex flex-wrap items-start gap-3">
          <Field label="Label" error={labelError} hint="What it is for, e.g. “laptop CLI” or “training cluster cron”." className="min-w-0 flex-1 basis-64">
            {(control) => (
              <input {...control} name="label" value={label} maxLength={100} autoComplete="off" onChange={(event) => setLabel(event.target.value)} className={inputClass} />
            )}
          </Field>
          <button type="submit" disabled={creating} className={`${buttonClass("primary")} sm:mt-6`}>
            {creating ? "Creating…" : "Create token"}
          </button>
        </div>
        {formError && (
          <div className="mt-3">
            <FormAlert>{formError}</FormAlert>
          </div>
        )}
      </form>

      <section aria-labelledby="tokens-heading" className="space-y-3">
        <h2 id="tokens-heading" className="text-base font-semibold">
          Your tokens
        </h2>
        {tokens.length === 0 ? (
          <p className="rounded-xl border border-dashed border-slate-300 px-4 py-8 text-center text-sm text-slate-500 dark:border-slate-700 dark:text-slate-400">
            No tokens yet. Create one above to use gpudesk from scripts.
          </p>
        ) : (
          <div className={t.tableCard}>
            <table className={t.table} aria-labelledby="tokens-heading">
              <thead>
                <tr className={t.headRow}>
                  <th scope="col" className={t.th}>Label</th>
                  <th scope="col" className={`${t.th} ${t.wideOnly}`}>Prefix</th>
                  <th scope="col" className={`${t.th} ${t.wideOnly}`}>Created</th>
                  <th scope="col" className={`${t.th} ${t.wideOnly}`}>Last used</th>
                  <th scope="col" className={t.th}>Status</th>
                  <th scope="col" className={t.th}><span className="sr-only">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {tokens.map((row) => (
                  <tr key={row.id} className={t.bodyRow}>
                    <td className={`${t.td} font-medium`}>
                      <span className="break-words">{row.label}</span>
                      <div className={`${t.narrowOnly} mt-1 space-y-0.5 text-xs font-normal text-slate-500 dark:text-slate-400`}>
                        <p className="font-mono">{row.tokenPrefix}…</p>
                        <p>
                          Created <TimeAgo iso={row.createdAt} /> · used <TimeAgo iso={row.lastUsedAt} />
                        </p>
                      </div>
                    </td>
                    <td className={`${t.td} ${t.wideOnly} font-mono text-xs`}>{row.tokenPrefix}…</td>
                    <td className={`${t.td} ${t.wideOnly}`}><TimeAgo iso={row.createdAt} /></td>
                    <td className={`${t.td} ${t.wideOnly}`}><TimeAgo iso={row.lastUsedAt} /></td>
                    <td className={t.td}>
                      {row.revokedAt ? (
                        <span className="inline-flex flex-col items-start gap-0.5">
                          <Badge tone="offline">Revoked</Badge>
                          <span className="text-xs text-slate-500 dark:text-slate-400"><TimeAgo iso={row.revokedAt} /></span>
                        </span>
                      ) : (
                        <Badge tone="free">Active</Badge>
                      )}
                    </td>
                    <td className={`${t.td} text-right`}>
                      {!row.revokedAt && (
                        <button
                          type="button"
                          aria-label={`Revoke ${row.label}`}
                          onClick={() => {
                            setRevokeError(null);
                            setRevoking(row);
                          }}
                          className={buttonClass("secondary", "sm")}
                        >
                          Revoke
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke “${revoking?.label ?? ""}”?`}
        confirmLabel="Revoke token"
        pendingLabel="Revoking…"
        pending={revokePending}
        error={revokeError}
        onConfirm={revoke}
        onCancel={() => setRevoking(null)}
      >
        <p>Anything that uses this token stops working at once. This cannot be undone; make a new token if you need one.</p>
      </ConfirmDialog>
    </div>
  );
}
