"use client";

import { createContext, use } from "react";
import { setViewerTimeZone } from "@/lib/format/local-time";
import type { PageAnswers } from "@/server/access/permissions";
import type { UserPrincipal } from "@/server/access/principal";

/**
 * The signed-in person as client components see it. Never holds a secret.
 * `can`: what the pages may offer them, the same answers as `GET
 * /api/v1/me`'s `can` (server/access/permissions.ts); a component asks it,
 * never the role.
 */
export type CurrentUser = UserPrincipal["user"] & { can: PageAnswers };

const CurrentUserContext = createContext<CurrentUser | null>(null);

/** Filled by a server component (PageShell) with the person it has already checked. */
export function CurrentUserProvider({ user, timeZone = null, children }: { user: CurrentUser; timeZone?: string | null; children: React.ReactNode }) {
  // The person's zone (Settings → Account) for every time this page writes (lib/format/local-time.ts).
  // Set while rendering, before any child formats a time; in the browser only: the server
  // renders no times (its zone is not the viewer's) and serves many people at once.
  if (typeof window !== "undefined") setViewerTimeZone(timeZone);
  return <CurrentUserContext value={user}>{children}</CurrentUserContext>;
}

/**
 * The signed-in person. Only pages wrapped in PageShell have one; anywhere
 * else this throws, because rendering a signed-in page without a user is a
 * bug rather than a state to handle.
 */
export function useCurrentUser(): CurrentUser {
  const user = use(CurrentUserContext);
  if (!user) throw new Error("useCurrentUser() outside <CurrentUserProvider>: wrap the page in <PageShell>");
  return user;
}

/** The signed-in person, or null on pages without one (the sign-in page, the wall display). */
export function useOptionalCurrentUser(): CurrentUser | null {
  return use(CurrentUserContext);
}
