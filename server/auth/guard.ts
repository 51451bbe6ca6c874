import { noteAuditActor } from "@/server/core/audit-context";
import { AppError } from "@/server/core/errors";
import type { DisplayPrincipal, Principal, UserPrincipal } from "@/server/access/principal";
import { authenticateRequest } from "@/server/auth/authenticate";
import { can } from "@/server/access/permissions";

/**
 * Who is asking, from a session cookie or an `Authorization: Bearer` token
 * (personal or display). Null when nobody is signed in.
 */
export async function getPrincipal(request: Request): Promise<Principal | null> {
  return authenticateRequest(request);
}

/** What a person signed in with a temporary password may still do: see who they are, and change it. */
const PASSWORD_CHANGE_PATHS = new Set(["/api/v1/me", "/api/v1/me/password"]);

/** A signed-in person (session or personal token); 401 otherwise, 403 for a display token. */
export async function requireUser(request: Request): Promise<UserPrincipal> {
  const principal = await getPrincipal(request);
  if (!principal) throw new AppError("unauthorized", "Sign in or pass a personal API token");
  if (principal.kind !== "user") throw new AppError("forbidden", "A display token can only read the live fleet");
  noteAuditActor(principal.user.id);
  assertPasswordChosen(principal, request);
  return principal;
}

/** Signed in (session or token) with a temporary password: every call but seeing who they are and changing it answers 403. */
function assertPasswordChosen(principal: UserPrincipal, request: Request): void {
  if (principal.user.mustChangePassword && !PASSWORD_CHANGE_PATHS.has(new URL(request.url).pathname)) {
    throw new AppError("password_change_required", "Choose your own password first (Settings → Account): this one was temporary");
  }
}

export async function requireAdmin(request: Request): Promise<UserPrincipal> {
  const principal = await requireUser(request);
  if (!can.administer(principal.user)) throw new AppError("forbidden", "Only an admin can do this");
  return principal;
}

/** Anyone who may see the live fleet: a person or a display token. */
export async function requireViewer(request: Request): Promise<UserPrincipal | DisplayPrincipal> {
  const principal = await getPrincipal(request);
  if (!principal) throw new AppError("unauthorized", "Sign in or pass a display token");
  if (principal.kind === "user") assertPasswordChosen(principal, request);
  return principal;
}
