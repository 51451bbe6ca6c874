import { randomBytes } from "node:crypto";
import { changePasswordSchema, resetPasswordSchema } from "@/lib/domain/password";
import { recordAudit, writeAudit } from "@/server/access/audit-log";
import { claimLogin, clearLoginCount } from "@/server/auth/login-throttle";
import { auth } from "@/server/auth/better-auth";
import type { UserPrincipal } from "@/server/access/principal";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import { disconnectLivePrincipal } from "@/server/access/live-revocation";

function newFeedKey(): string {
  return randomBytes(16).toString("base64url");
}

/**
 * Changes the signed-in person's own password through better-auth (which
 * checks the current one and hashes the new one) and ends every other
 * session of theirs; this browser gets a fresh session, and their calendar
 * feed gets a new address. Wrong current passwords count against the
 * sign-in throttle of their username and are audited. Answers the
 * headers (the new session cookie) to pass on to the browser.
 */
export async function changeOwnPassword(principal: UserPrincipal, requestHeaders: Headers, input: unknown): Promise<Headers> {
  if (principal.via !== "session") throw new AppError("forbidden", "Change your password in the browser, signed in with it, not with an API token");
  const { currentPassword, newPassword } = changePasswordSchema.parse(input);
  // Guessing the current password here is guessing the person's password: the sign-in's own
  // per-username throttle counts it (before the check), and a wrong guess is audited.
  const { wait, claim } = await claimLogin(principal.user.username);
  if (wait > 0) {
    await recordAudit({ actorId: principal.user.id, action: "user.password_change_refused", entityType: "user", entityId: principal.user.id, after: { reason: "throttled", retryInSeconds: Math.ceil(wait / 1000) } });
    throw new AppError("rate_limited", `Too many wrong passwords. Try again in ${Math.ceil(wait / 1000)} s.`);
  }
  const secure = /(?:^|;\s*)__Secure-gpudesk\./.test(requestHeaders.get("cookie") ?? "");
  let headers: Headers;
  try {
    ({ headers } = await auth(secure).api.changePassword({
      body: { currentPassword, newPassword, revokeOtherSessions: true },
      headers: requestHeaders,
      returnHeaders: true,
    }));
  } catch (error) {
    const code = (error as { body?: { code?: string } }).body?.code;
    // 403, not 400: the request is well formed, but whoever sent it did not prove they are the person.
    if (code === "INVALID_PASSWORD") {
      await recordAudit({ actorId: principal.user.id, action: "user.password_change_refused", entityType: "user", entityId: principal.user.id, after: { reason: "wrong_current_password" } });
      throw new AppError("forbidden", "The current password is not right", { currentPassword: "is not right" });
    }
    if (code === "CREDENTIAL_ACCOUNT_NOT_FOUND") throw new AppError("bad_request", "This account signs in without a gpudesk password");
    throw error;
  }
  await clearLoginCount(claim);
  await db().$transaction(async (tx) => {
    // A new password voids the calendar feed addresses given out under the old one.
    await tx.user.update({ where: { id: principal.user.id }, data: { mustChangePassword: false, calendarFeedKey: newFeedKey() } });
    await writeAudit(tx, { actorId: principal.user.id, action: "user.password_change", entityType: "user", entityId: principal.user.id, after: { otherSessionsEnded: true } });
  });
  // Their other pages lose the live feed at once; this one reconnects with its new session.
  disconnectLivePrincipal({ kind: "user", id: principal.user.id });
  return headers;
}

/**
 * An admin (or `gpudesk user set-password`) sets a person's password: by
 * default a temporary one they must replace at their next sign-in. Every
 * session of theirs ends. Demo accounts of the simulated fleet cannot sign
 * in and get none.
 */
export async function resetPassword(userId: string, input: unknown, actorId: string | null): Promise<void> {
  const { password, mustChange } = resetPasswordSchema.parse(input);
  const person = await db().user.findUnique({ where: { id: userId }, select: { id: true, simulated: true, username: true } });
  if (!person) throw new AppError("not_found", "No such user");
  if (person.simulated) throw new AppError("bad_request", `${person.username} is a demo account of the simulated fleet and cannot sign in`);
  const context = await auth().$context;
  const hash = await context.password.hash(password);
  const account = await context.internalAdapter.findCredentialAccount(userId);
  if (account) await context.internalAdapter.updatePassword(userId, hash);
  else await context.internalAdapter.linkAccount({ userId, providerId: "credential", accountId: userId, password: hash });
  await context.internalAdapter.deleteUserSessions(userId);
  await db().$transaction(async (tx) => {
    await tx.user.update({ where: { id: userId }, data: { mustChangePassword: mustChange, calendarFeedKey: newFeedKey() } });
    await writeAudit(tx, { actorId, action: "user.password_reset", entityType: "user", entityId: userId, after: { mustChange, sessionsEnded: true } });
  });
  disconnectLivePrincipal({ kind: "user", id: userId });
}
