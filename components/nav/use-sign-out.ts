"use client";

import { useState } from "react";

/**
 * Ends the session through better-auth and leaves for the sign-in page, or
 * for the OIDC provider's end-session page after a single sign-on. A
 * full navigation rather than a client-side one, so that nothing rendered
 * for the signed-in person stays in memory.
 */
export function useSignOut() {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function signOut() {
    setPending(true);
    setError(null);
    try {
      const response = await fetch("/api/auth/sign-out", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ disableRedirect: true }),
      });
      // After a single sign-on, the provider's end-session page signs out there too (and comes back where it can).
      const providerLogout = response.ok ? ((await response.json().catch(() => null)) as { url?: unknown } | null)?.url : undefined;
      if (typeof providerLogout === "string" && /^https?:\/\//.test(providerLogout)) {
        window.location.assign(providerLogout);
        return;
      }
      // 401: the session had already ended; the sign-in page is the right place either way.
      if (response.ok || response.status === 401) {
        window.location.assign("/login");
        return;
      }
      setError("Signing out failed. Try again.");
    } catch {
      setError("The server cannot be reached. Try again.");
    }
    setPending(false);
  }

  return { signOut, pending, error };
}
