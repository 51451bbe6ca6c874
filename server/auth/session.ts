import { headers } from "next/headers";
import { cache } from "react";
import { redirect } from "next/navigation";
import { sessionPrincipal } from "@/server/auth/authenticate";
import type { UserPrincipal } from "@/server/access/principal";
import { can } from "@/server/access/permissions";

/** The signed-in person for a server component, or null; read once per request however many components ask. */
export const getPageUser = cache(async (): Promise<UserPrincipal | null> => {
  const principal = await sessionPrincipal(await headers());
  return principal?.kind === "user" ? principal : null;
});

export const ACCOUNT_PATH = "/settings/account";

/** The signed-in person; anyone else is sent to the sign-in page and brought back afterwards. */
export async function requirePageUser(returnTo = "/"): Promise<UserPrincipal> {
  const principal = await getPageUser();
  if (!principal) redirect(`/login?next=${encodeURIComponent(returnTo)}`);
  // A temporary password from an admin's reset: their own comes first.
  if (principal.user.mustChangePassword && returnTo !== ACCOUNT_PATH) redirect(`${ACCOUNT_PATH}?required=1`);
  return principal;
}

/** An admin; a member gets the not-found page rather than a hint that the page exists. */
export async function requirePageAdmin(returnTo = "/"): Promise<UserPrincipal> {
  const principal = await requirePageUser(returnTo);
  if (!can.administer(principal.user)) redirect("/?forbidden=1");
  return principal;
}
