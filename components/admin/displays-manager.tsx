"use client";

import { useState, type FormEvent } from "react";
import { apiRequest, type Serialized } from "@/lib/api-client";
import type { DisplaySummary } from "@/server/auth/tokens";
import { CopyBlock, SecretReveal } from "@/components/forms/secret-reveal";
import { Field, FormAlert, inputClass } from "@/components/forms/field";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button-styles";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import * as t from "@/components/ui/table-styles";
import { TimeAgo } from "@/components/ui/time-ago";

export type DisplayRow = Serialized<DisplaySummary>;

type Created = { name: string; token: string; origin: string };

function byName(a: DisplayRow, b: DisplayRow): number {
  return a.name.localeCompare(b.name);
}

/** Wall screens: each reads the live fleet with its own token, and nothing else. */
export function DisplaysManager({ initialDisplays }: { initialDisplays: DisplayRow[] }) {
  const [displays, setDisplays] = useState(initialDisplays);
  const [name, setName] = useState("");
  const [nameError, setNameError] = useState<string | undefined>();
  const [formError, setFormError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Created | null>(null);
  const [revoking, setRevoking] = useState<DisplayRow | null>(null);
  const [revokePending, setRevokePending] = useState(false);
  const [revokeError, setRevokeError] = useState<string | null>(null);

  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    if (!name.trim()) {
      setNameError("is required");
      return;
    }
    setNameError(undefined);
    setCreating(true);
    const result = await apiRequest<{ token: string; display: DisplayRow }>("POST", "/api/v1/displays", { name });
    setCreating(false);
    if (!result.ok) {
      if (result.error.fields?.name) setNameError(result.error.fields.name);
      else setFormError(result.error.message);
      return;
    }
    const { token, display } = result.data;
    setDisplays((current) => [...current, display].sort(byName));
    setCreated({ name: display.name, token, origin: window.location.origin });
    setName("");
  }

  async function revoke() {
    if (!revoking) return;
    setRevokePending(true);
    setRevokeError(null);
    const result = await apiRequest<null>("DELETE", `/api/v1/displays/${encodeURIComponent(revoking.id)}`);
    setRevokePending(false);
    if (!result.ok && result.error.status !== 404) {
      setRevokeError(result.error.message);
      return;
    }
    const revokedAt = new Date().toISOString();
    setDisplays((current) => current.map((row) => (row.id === revoking.id ? { ...row, revokedAt: row.revokedAt ?? revokedAt } : row)));
    setRevoking(null);
  }

  return (
    <div className="space-y-6">
      {created && (
        <SecretReveal title={`Display “${created.name}” added`} label="Display token" secret={created.token} onDismiss={() => setCreated(null)}>
          <CopyBlock label="Open on the wall screen" copyName="Copy address" text={`${created.origin}/display?token=${created.token}`} />
          <p className="text-sm text-emerald-950 dark:text-emerald-100">
            Bookmark this address on the screen&apos;s browser. It shows the live fleet without anyone signing in, and allows nothing else.
          </p>
        </SecretReveal>
      )}

      <form onSubmit={add} noValidate aria-label="Add a display" className="rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900">
        <h2 className="mb-4 text-base font-semibold">Add a display</h2>
        <div className="flex flex-wrap items-start gap-3">
          <Field label="Display name" error={nameError} hint="Where it hangs, e.g. “Lab 2 hallway”." className="min-w-0 flex-1 basis-64">
            {(control) => (
              <input
                {...control}
                name="name"
                value={name}
                maxLength={64}
                autoComplete="off"
                onChange={(event) => {
                  setName(event.target.value);
                  setNameError(undefined);
                }}
                className={inputClass}
              />
            )}
          </Field>
          <button type="submit" disabled={creating} className={`${buttonClass("primary")} sm:mt-6`}>
            {creating ? "Adding…" : "Add display"}
          </button>
        </div>
        {formError && (
          <div className="mt-3">
            <FormAlert>{formError}</FormAlert>
          </div>
        )}
      </form>

      <section aria-labelledby="displays-heading" className="space-y-3">
        <h2 id="displays-heading" className="text-base font-semibold">
          Displays
        </h2>
        {displays.length === 0 ? (
          <p className="rounded-xl border border-dashed border-slate-300 px-4 py-8 text-center text-sm text-slate-500 dark:border-slate-700 dark:text-slate-400">
            No wall displays yet.
          </p>
        ) : (
          <div className={t.tableCard}>
            <table className={t.table} aria-labelledby="displays-heading">
              <thead>
                <tr className={t.headRow}>
                  <th scope="col" className={t.th}>Name</th>
                  <th scope="col" className={`${t.th} ${t.wideOnly}`}>Token</th>
                  <th scope="col" className={`${t.th} ${t.wideOnly}`}>Created</th>
                  <th scope="col" className={`${t.th} ${t.wideOnly}`}>Last used</th>
                  <th scope="col" className={t.th}>Status</th>
                  <th scope="col" className={t.th}><span className="sr-only">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {displays.map((row) => (
                  <tr key={row.id} className={t.bodyRow}>
                    <td className={`${t.td} font-medium`}>
                      <span className="break-words">{row.name}</span>
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
                        <button type="button" aria-label={`Revoke ${row.name}`} onClick={() => { setRevokeError(null); setRevoking(row); }} className={buttonClass("secondary", "sm")}>
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
        title={`Revoke “${revoking?.name ?? ""}”?`}
        confirmLabel="Revoke display"
        pendingLabel="Revoking…"
        pending={revokePending}
        error={revokeError}
        onConfirm={revoke}
        onCancel={() => setRevoking(null)}
      >
        <p>The screen stops updating at once. To show the fleet there again, add a new display and open its address.</p>
      </ConfirmDialog>
    </div>
  );
}
