"use client";

import { useEffect, useState, type FormEvent } from "react";
import type { SignInOptions } from "@/server/sso/sign-in-options";

interface SignInFormProps {
  next: string;
  options: SignInOptions;
  /** Why a single sign-on came back unfinished (?error=), in words. */
  ssoError: string | null;
}

/**
 * The "Sign in with …" button (OIDC) and the username and password form
 * (gpudesk's own passwords, or the directory's with LDAP) against
 * better-auth's username sign-in; one message for every wrong combination.
 */
export function SignInForm({ next, options, ssoError }: SignInFormProps) {
  const [error, setError] = useState<string | null>(ssoError);
  const [pending, setPending] = useState(false);
  // The page's own part hydrates after the layout (app/loading.tsx makes it a Suspense boundary of
  // its own), so the layout's HydrationGate may enable the button while this form has no handler yet:
  // a click then submitted the form natively, the password in the address (seen in CI under load).
  // The button waits for this form's own first effect; the form posts, never a GET, in any case.
  const [ready, setReady] = useState(false);
  useEffect(() => setReady(true), []);

  async function startSso() {
    setPending(true);
    setError(null);
    try {
      const response = await fetch("/api/auth/sign-in/social", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ provider: "oidc", callbackURL: next, errorCallbackURL: "/login" }),
      });
      const body = (await response.json().catch(() => null)) as { url?: string } | null;
      if (response.ok && body?.url) {
        window.location.assign(body.url);
        return;
      }
      setError("The identity provider cannot be reached. Try again in a moment.");
    } catch {
      setError("The server cannot be reached. Try again in a moment.");
    }
    setPending(false);
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const username = String(form.get("username") ?? "").trim();
    const password = String(form.get("password") ?? "");
    if (!username || !password) {
      setError("Enter your username and password.");
      return;
    }
    setPending(true);
    setError(null);
    try {
      const response = await fetch("/api/auth/sign-in/username", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username, password }),
      });
      if (response.ok) {
        window.location.assign(next);
        return;
      }
      if (response.status === 429 || response.status === 403 || response.status === 503) {
        const body = (await response.json().catch(() => null)) as { message?: string } | null;
        setError(body?.message ?? "Too many attempts. Wait a moment and try again.");
      } else {
        setError("Wrong username or password.");
      }
    } catch {
      setError("The server cannot be reached. Try again in a moment.");
    } finally {
      setPending(false);
    }
  }

  const field =
    "mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-base shadow-sm focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-500/30 dark:border-slate-700 dark:bg-slate-900";
  const errorBox = error && (
    <p id="sign-in-error" role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
      {error}
    </p>
  );
  const ssoButton = options.oidcName && (
    <button
      type="button"
      onClick={startSso}
      disabled={pending}
      className={
        // The only way in: the primary button; beside the password form: the secondary one.
        options.passwordForm
          ? "w-full rounded-md border border-slate-300 bg-white px-4 py-2 font-medium text-slate-900 shadow-sm hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500 disabled:opacity-60 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800"
          : "w-full rounded-md bg-sky-600 px-4 py-2 font-medium text-white hover:bg-sky-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500 disabled:opacity-60"
      }
    >
      Sign in with {options.oidcName}
    </button>
  );
  if (!options.passwordForm) {
    return (
      <div className="space-y-4">
        {ssoButton}
        {errorBox}
      </div>
    );
  }
  return (
    <div className="space-y-6">
      {ssoButton}
      {ssoButton && (
        <p className="flex items-center gap-3 text-xs uppercase tracking-wide text-slate-500 before:h-px before:flex-1 before:bg-slate-200 after:h-px after:flex-1 after:bg-slate-200 dark:before:bg-slate-700 dark:after:bg-slate-700">
          or
        </p>
      )}
      <form method="post" onSubmit={submit} noValidate className="space-y-4" aria-describedby={error ? "sign-in-error" : undefined}>
        <label className="block text-sm font-medium">
          Username
          <input name="username" autoComplete="username" autoCapitalize="none" spellCheck={false} required className={field} />
        </label>
        <label className="block text-sm font-medium">
          {options.directoryPasswords ? "Password (your lab account's)" : "Password"}
          <input name="password" type="password" autoComplete="current-password" required className={field} />
        </label>
        {errorBox}
        <button
          type="submit"
          disabled={pending || !ready}
          className="w-full rounded-md bg-sky-600 px-4 py-2 font-medium text-white hover:bg-sky-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500 disabled:opacity-60"
        >
          {pending ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </div>
  );
}
