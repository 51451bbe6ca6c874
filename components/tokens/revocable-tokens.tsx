"use client";

import { useState, type FormEvent, type InputHTMLAttributes, type ReactNode } from "react";
import { Field, FormAlert, inputClass } from "@/components/forms/field";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button-styles";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import * as t from "@/components/ui/table-styles";
import { TimeAgo } from "@/components/ui/time-ago";

/**
 * The one screen for things that hold a secret token the server shows once
 * and can take back: personal API tokens (/settings/tokens), wall displays
 * (/admin/displays) and GPU hosts (/admin/hosts). A form makes one, the
 * secret is shown above it (`reveal`, the page's own words), a table lists
 * them, and each row's actions (revoke, rotate, remove) ask first in a
 * dialog. The page keeps the rows and says what each request is; this keeps
 * the form's, the table's and the dialog's state and markup.
 */

/** What a create request came to: done, or an error for the field or for the whole form. */
export type CreateOutcome = { ok: true } | { ok: false; fieldError: string } | { ok: false; formError: string };

export interface TokenColumn<Row> {
  header: ReactNode;
  /** Hidden on narrow screens (the first column then shows what matters of it). */
  wideOnly?: boolean;
  headerClassName?: string;
  cellClassName?: string;
  cell: (row: Row) => ReactNode;
}

export interface TokenAction<Row> {
  /** The row's button, and its accessible name. */
  label: string;
  ariaLabel: (row: Row) => string;
  /** Whether the row offers it (default: always). */
  offered?: (row: Row) => boolean;
  /** The dialog that asks first. */
  title: (row: Row) => string;
  confirmLabel: string;
  pendingLabel: string;
  warning: ReactNode;
  /** Does it; the server's reason to show in the dialog, or null when done. */
  run: (row: Row) => Promise<string | null>;
}

export interface RevocableTokensProps<Row extends { id: string }> {
  /** The secret just made, shown above the form (a SecretReveal), or null. */
  reveal: ReactNode;
  /** Between the secret and the form (the hosts' install line). */
  intro?: ReactNode;
  form: {
    ariaLabel: string;
    heading: string;
    description?: ReactNode;
    fieldLabel: string;
    fieldName: string;
    hint: string;
    maxLength: number;
    inputProps?: InputHTMLAttributes<HTMLInputElement>;
    submitLabel: string;
    pendingLabel: string;
    submit: (value: string) => Promise<CreateOutcome>;
  };
  table: {
    id: string;
    heading: string;
    empty: string;
    className?: string;
    columns: TokenColumn<Row>[];
  };
  rows: Row[];
  actions: TokenAction<Row>[];
}

export function RevocableTokens<Row extends { id: string }>({ reveal, intro, form, table, rows, actions }: RevocableTokensProps<Row>) {
  const [value, setValue] = useState("");
  const [fieldError, setFieldError] = useState<string | undefined>();
  const [formError, setFormError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [asking, setAsking] = useState<{ action: TokenAction<Row>; row: Row } | null>(null);
  const [actionPending, setActionPending] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    if (!value.trim()) {
      setFieldError("is required");
      return;
    }
    setFieldError(undefined);
    setCreating(true);
    const outcome = await form.submit(value);
    setCreating(false);
    if (!outcome.ok) {
      if ("fieldError" in outcome) setFieldError(outcome.fieldError);
      else setFormError(outcome.formError);
      return;
    }
    setValue("");
  }

  async function confirm() {
    if (!asking) return;
    setActionPending(true);
    setActionError(null);
    const error = await asking.action.run(asking.row);
    setActionPending(false);
    if (error !== null) {
      setActionError(error);
      return;
    }
    setAsking(null);
  }

  return (
    <div className="space-y-6">
      {reveal}
      {intro}

      <form onSubmit={create} noValidate aria-label={form.ariaLabel} className="rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900">
        <h2 className={`${form.description ? "" : "mb-4 "}text-base font-semibold`}>{form.heading}</h2>
        {form.description && <p className="mt-1 mb-4 text-sm text-slate-600 dark:text-slate-400">{form.description}</p>}
        <div className="flex flex-wrap items-start gap-3">
          <Field label={form.fieldLabel} error={fieldError} hint={form.hint} className="min-w-0 flex-1 basis-64">
            {(control) => (
              <input
                {...control}
                {...form.inputProps}
                name={form.fieldName}
                value={value}
                maxLength={form.maxLength}
                autoComplete="off"
                onChange={(event) => {
                  setValue(event.target.value);
                  setFieldError(undefined);
                }}
                className={inputClass}
              />
            )}
          </Field>
          <button type="submit" disabled={creating} className={`${buttonClass("primary")} sm:mt-6`}>
            {creating ? form.pendingLabel : form.submitLabel}
          </button>
        </div>
        {formError && (
          <div className="mt-3">
            <FormAlert>{formError}</FormAlert>
          </div>
        )}
      </form>

      <section aria-labelledby={table.id} className="space-y-3">
        <h2 id={table.id} className="text-base font-semibold">
          {table.heading}
        </h2>
        {rows.length === 0 ? (
          <p className="rounded-xl border border-dashed border-slate-300 px-4 py-8 text-center text-sm text-slate-500 dark:border-slate-700 dark:text-slate-400">
            {table.empty}
          </p>
        ) : (
          <div className={t.tableCard}>
            <table className={table.className ? `${t.table} ${table.className}` : t.table} aria-labelledby={table.id}>
              <thead>
                <tr className={t.headRow}>
                  {table.columns.map((column, i) => (
                    <th key={i} scope="col" className={columnClass(t.th, column, column.headerClassName)}>
                      {column.header}
                    </th>
                  ))}
                  <th scope="col" className={t.th}>
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => {
                  const offered = actions.filter((action) => action.offered?.(row) ?? true);
                  return (
                    <tr key={row.id} className={t.bodyRow}>
                      {table.columns.map((column, i) => (
                        <td key={i} className={columnClass(t.td, column, column.cellClassName)}>
                          {column.cell(row)}
                        </td>
                      ))}
                      <td className={`${t.td} text-right whitespace-nowrap`}>
                        {offered.length > 0 && (
                          <span className="inline-flex gap-2">
                            {offered.map((action) => (
                              <button
                                key={action.label}
                                type="button"
                                aria-label={action.ariaLabel(row)}
                                onClick={() => {
                                  setActionError(null);
                                  setAsking({ action, row });
                                }}
                                className={buttonClass("secondary", "sm")}
                              >
                                {action.label}
                              </button>
                            ))}
                          </span>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <ConfirmDialog
        open={asking !== null}
        title={asking ? asking.action.title(asking.row) : ""}
        confirmLabel={asking?.action.confirmLabel ?? ""}
        pendingLabel={asking?.action.pendingLabel}
        pending={actionPending}
        error={actionError}
        onConfirm={confirm}
        onCancel={() => setAsking(null)}
      >
        {asking?.action.warning}
      </ConfirmDialog>
    </div>
  );
}

function columnClass<Row>(base: string, column: TokenColumn<Row>, extra: string | undefined): string {
  return [base, column.wideOnly ? t.wideOnly : "", extra ?? ""].filter(Boolean).join(" ");
}

/** What a token row shows: its name or label, the prefix, when made and last used, and whether it still works. */
export interface TokenFields {
  tokenPrefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/**
 * The columns of a revocable token (personal tokens, displays): the name,
 * with prefix and times under it on narrow screens, then prefix, created,
 * last used and status.
 */
export function tokenColumns<Row extends TokenFields>(nameHeader: string, nameOf: (row: Row) => string, prefixHeader: string): TokenColumn<Row>[] {
  return [
    {
      header: nameHeader,
      cellClassName: "font-medium",
      cell: (row) => (
        <>
          <span className="break-words">{nameOf(row)}</span>
          <div className={`${t.narrowOnly} mt-1 space-y-0.5 text-xs font-normal text-slate-500 dark:text-slate-400`}>
            <p className="font-mono">{row.tokenPrefix}…</p>
            <p>
              Created <TimeAgo iso={row.createdAt} /> · used <TimeAgo iso={row.lastUsedAt} />
            </p>
          </div>
        </>
      ),
    },
    { header: prefixHeader, wideOnly: true, cellClassName: "font-mono text-xs", cell: (row) => `${row.tokenPrefix}…` },
    { header: "Created", wideOnly: true, cell: (row) => <TimeAgo iso={row.createdAt} /> },
    { header: "Last used", wideOnly: true, cell: (row) => <TimeAgo iso={row.lastUsedAt} /> },
    {
      header: "Status",
      cell: (row) =>
        row.revokedAt ? (
          <span className="inline-flex flex-col items-start gap-0.5">
            <Badge tone="offline">Revoked</Badge>
            <span className="text-xs text-slate-500 dark:text-slate-400">
              <TimeAgo iso={row.revokedAt} />
            </span>
          </span>
        ) : (
          <Badge tone="free">Active</Badge>
        ),
    },
  ];
}

/** The row as revoked now (kept as it was if the server had revoked it already). */
export function markRevoked<Row extends { id: string; revokedAt: string | null }>(rows: Row[], id: string): Row[] {
  const revokedAt = new Date().toISOString();
  return rows.map((row) => (row.id === id ? { ...row, revokedAt: row.revokedAt ?? revokedAt } : row));
}
