"use client";

import { createContext, use } from "react";
import type { UserPrincipal } from "@/server/auth/principal";

/** The signed-in person as client components see it. Never holds a secret. */
export type CurrentUser = UserPrincipal["user"];

const CurrentUserContext = createContext<CurrentUser | null>(null);

/** Filled by a server component (PageShell) with the person it has already checked. */
export function CurrentUserProvider({ user, children }: { user: CurrentUser; children: React.ReactNode }) {
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
