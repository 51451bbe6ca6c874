"use client";

import { useState, type FormEvent } from "react";
import { apiRequest } from "@/lib/api-client";
import type { UserRow as User } from "@/components/admin/user-create-form";
import { controlClass, fieldErrorText } from "@/components/forms/field";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button-styles";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import * as t from "@/components/ui/table-styles";
import { isAdminRole } from "@/lib/domain/roles";

interface UserRowProps {
  user: User;
  /** The admin looking at the page: they cannot disable themselves here, and demoting themselves asks first. */
  isSelf: boolean;
  /** OIDC or LDAP is set up: the account can be given to the directory's person of its username. */
  directory: boolean;
  onUpdated: (user: User) => void;
}

type Patch = { role?: "member" | "admin"; disabled?: boolean; unixLogin?: string | null; password?: string; takeOverDemo?: boolean; directoryLink?: boolean };
type Pending = "role" | "disabled" | "unixLogin" | "password" | "directoryLink" | null;

/** A temporary password to read out or paste: 16 letters and digits, without look-alikes. */
function temporaryPassword(): string {
  const alphabet = "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => alphabet[byte % alphabet.length]).join("");
}

/** One person: role, Unix login and access, each changed in place; a refusal shows under the row. */
export function UserRow({ user, isSelf, directory, onUpdated }: UserRowProps) {
  const [pending, setPending] = useState<Pending>(null);
  const [error, setError] = useState<string | null>(null);
  const [editingLogin, setEditingLogin] = useState(false);
  const [loginDraft, setLoginDraft] = useState("");
  const [loginError, setLoginError] = useState<string | undefined>();
  const [confirm, setConfirm] = useState<"disable" | "demote-self" | "reset" | null>(null);
  const [resetPassword, setResetPassword] = useState("");
  const [resetDone, setResetDone] = useState<string | null>(null);

  async function patch(body: Patch, kind: Exclude<Pending, null>): Promise<boolean> {
    setPending(kind);
    setError(null);
    const result = await apiRequest<{ user: User }>("PATCH", `/api/v1/users/${encodeURIComponent(user.id)}`, body);
    setPending(null);
    if (!result.ok) {
      if (kind === "unixLogin" && result.error.fields?.unixLogin) setLoginError(result.error.fields.unixLogin);
      else setError(result.error.message);
      return false;
    }
    onUpdated(result.data.user);
    return true;
  }

  async function saveLogin(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setLoginError(undefined);
    const value = loginDraft.trim();
    if (value === (user.unixLogin ?? "")) {
      setEditingLogin(false);
      return;
    }
    if (await patch({ unixLogin: value === "" ? null : value }, "unixLogin")) setEditingLogin(false);
  }

  async function confirmed() {
    if (confirm === "reset") {
      if (await patch({ password: resetPassword }, "password")) {
        setResetDone(resetPassword);
        setConfirm(null);
      }
    } else if (confirm === "disable") {
      if (await patch({ disabled: true }, "disabled")) setConfirm(null);
    } else if (confirm === "demote-self") {
      // Without admin rights this page is no longer theirs.
      if (await patch({ role: "member" }, "role")) window.location.assign("/");
    }
  }

  return (
    <>
      <tr className={`${t.bodyRow} ${user.disabled ? "text-slate-500 dark:text-slate-400" : ""}`}>
        <td className={`${t.td} font-medium whitespace-nowrap`}>
          <span className="font-mono">{user.username}</span>
          {user.simulated && (
            <span className="ml-2" title="A demo person of the simulated fleet: no password, cannot sign in">
              <Badge tone="warn">simulated</Badge>
            </span>
          )}
          {isSelf && (
            <span className="ml-2">
              <Badge>you</Badge>
            </span>
          )}
        </td>
        <td className={t.td}>{user.name}</td>
        <td className={t.td}>
          <select
            aria-label={`Role of ${user.username}`}
            value={user.role}
            disabled={pending !== null}
            onChange={(event) => {
              const role = event.target.value as "member" | "admin";
              if (isSelf && !isAdminRole(role)) setConfirm("demote-self");
              else void patch({ role }, "role");
            }}
            className={`${controlClass} py-1`}
          >
            <option value="member">Member</option>
            <option value="admin">Admin</option>
          </select>
        </td>
        <td className={t.td}>
          {editingLogin ? (
            <form onSubmit={saveLogin} noValidate className="flex flex-wrap items-start gap-2">
              <div>
                <input
                  aria-label={`Unix login of ${user.username}`}
                  aria-invalid={Boolean(loginError)}
                  aria-describedby={loginError ? `${user.id}-login-error` : undefined}
                  value={loginDraft}
                  autoFocus
                  maxLength={32}
                  spellCheck={false}
                  autoCapitalize="none"
                  placeholder="none"
                  onChange={(event) => {
                    setLoginDraft(event.target.value);
                    setLoginError(undefined);
                  }}
                  onKeyDown={(event) => {
                    if (event.key === "Escape") setEditingLogin(false);
                  }}
                  className={`${controlClass} w-36 py-1 font-mono`}
                />
                {loginError && (
                  <p id={`${user.id}-login-error`} className="mt-1 max-w-48 text-xs text-red-700 dark:text-red-300">
                    {fieldErrorText("Unix login", loginError)}
                  </p>
                )}
              </div>
              <button type="submit" disabled={pending === "unixLogin"} className={buttonClass("primary", "sm")}>
                {pending === "unixLogin" ? "Saving…" : "Save"}
              </button>
              <button type="button" onClick={() => setEditingLogin(false)} className={buttonClass("ghost", "sm")}>
                Cancel
              </button>
            </form>
          ) : (
            <span className="inline-flex items-center gap-2">
              <span className="font-mono">{user.unixLogin ?? <span className="text-slate-400">none</span>}</span>
              <button
                type="button"
                aria-label={`Edit Unix login of ${user.username}`}
                onClick={() => {
                  setLoginDraft(user.unixLogin ?? "");
                  setLoginError(undefined);
                  setEditingLogin(true);
                }}
                className="rounded text-xs font-medium text-sky-700 hover:underline focus-visible:outline-2 focus-visible:outline-sky-500 dark:text-sky-400"
              >
                Edit
              </button>
            </span>
          )}
        </td>
        <td className={t.td}>{user.disabled ? <Badge tone="offline">Disabled</Badge> : <Badge tone="free">Active</Badge>}</td>
        <td className={`${t.td} space-y-1 space-x-2 text-right`}>
          {directory && !user.disabled && (
            <button
              type="button"
              aria-label={user.directoryLink ? `Withdraw the directory link of ${user.username}` : `Link ${user.username} to the directory`}
              title={user.directoryLink ? "The next directory sign-in of this username takes this account" : "Let the next directory sign-in of this username take this account"}
              aria-pressed={user.directoryLink}
              disabled={pending !== null}
              onClick={() => void patch({ directoryLink: !user.directoryLink }, "directoryLink")}
              className={buttonClass("secondary", "sm")}
            >
              {pending === "directoryLink" ? "Saving…" : user.directoryLink ? "Linked: withdraw" : "Link to directory"}
            </button>
          )}
          {!user.disabled && (
            <button
              type="button"
              aria-label={`Reset password of ${user.username}`}
              disabled={pending !== null}
              onClick={() => {
                setResetPassword(temporaryPassword());
                setResetDone(null);
                setConfirm("reset");
              }}
              className={buttonClass("secondary", "sm")}
            >
              Reset password
            </button>
          )}
          {user.disabled ? (
            <button type="button" aria-label={`Enable ${user.username}`} disabled={pending !== null} onClick={() => void patch({ disabled: false }, "disabled")} className={buttonClass("secondary", "sm")}>
              {pending === "disabled" ? "Enabling…" : "Enable"}
            </button>
          ) : (
            !isSelf && (
              <button type="button" aria-label={`Disable ${user.username}`} disabled={pending !== null} onClick={() => setConfirm("disable")} className={buttonClass("secondary", "sm")}>
                Disable
              </button>
            )
          )}
          {confirm && (
            <ConfirmDialog
              open
              title={confirm === "reset" ? `Reset the password of ${user.username}?` : confirm === "disable" ? `Disable ${user.username}?` : "Give up your admin rights?"}
              confirmLabel={confirm === "reset" ? "Set temporary password" : confirm === "disable" ? "Disable" : "Make me a member"}
              pending={pending !== null}
              error={error}
              onConfirm={confirmed}
              onCancel={() => {
                setConfirm(null);
                setError(null);
              }}
            >
              {confirm === "reset" ? (
                <div className="space-y-2">
                  <p>They are signed out everywhere, sign in with this temporary password, and must choose their own at once.</p>
                  <label className="block text-sm font-medium">
                    Temporary password
                    <input
                      value={resetPassword}
                      onChange={(event) => setResetPassword(event.target.value)}
                      spellCheck={false}
                      autoComplete="off"
                      maxLength={256}
                      className={`${controlClass} mt-1 block w-full py-1.5 font-mono`}
                    />
                  </label>
                </div>
              ) : confirm === "disable" ? (
                <p>They are signed out everywhere at once and their API tokens stop working. You can enable them again later.</p>
              ) : (
                <p>You will no longer see the admin pages. Another admin can make you admin again.</p>
              )}
            </ConfirmDialog>
          )}
        </td>
      </tr>
      {resetDone && (
        <tr>
          <td colSpan={6} className="px-4 pb-3">
            <div role="status" className="flex items-start justify-between gap-3 rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:border-emerald-900 dark:bg-emerald-950 dark:text-emerald-100">
              <p>
                Temporary password of {user.username}: <code className="font-mono font-semibold">{resetDone}</code>. Tell it to them; it works until they choose their own.
              </p>
              <button type="button" onClick={() => setResetDone(null)} className="shrink-0 text-xs font-medium underline">
                Dismiss
              </button>
            </div>
          </td>
        </tr>
      )}
      {error && !confirm && (
        <tr>
          <td colSpan={6} className="px-4 pb-3">
            <div role="alert" className="flex items-start justify-between gap-3 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200">
              <p>
                <strong className="font-semibold">Not changed for {user.username}:</strong> {error}
              </p>
              <button type="button" onClick={() => setError(null)} className="shrink-0 text-xs font-medium underline">
                Dismiss
              </button>
            </div>
          </td>
        </tr>
      )}
    </>
  );
}
