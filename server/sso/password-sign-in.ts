import { APIError } from "better-auth/api";
import { setSessionCookie } from "better-auth/cookies";
import { clearLoginCount, type LoginClaim } from "@/server/auth/login-throttle";
import { invalidCredentials, type SignInContext } from "@/server/auth/sign-in-plug";
import { env } from "@/server/core/env";
import { log } from "@/server/core/log";
import { checkDirectoryPassword } from "@/server/sso/ldap";
import { recordSignInRefusal } from "@/server/sso/sign-in-refusals";

import { provisionDirectoryUser } from "@/server/sso/directory-user";

/**
 * The password form's sign-in (`/sign-in/username`, after the per-username
 * throttle counted the attempt and let it through, with the username
 * normalized and valid) where LDAP or the local-password switch is set.
 * The directory decides for everyone it knows: a successful bind creates or
 * updates the gpudesk account and answers with a better-auth session (and
 * clears the throttle's count, as a local sign-in does). Someone it does not know,
 * or a directory that cannot answer, falls back to gpudesk's own password
 * (null: let better-auth check it), unless local passwords are switched off.
 */
export async function passwordSignIn(ctx: SignInContext, username: string, password: string, claim: LoginClaim | null): Promise<unknown> {
  const config = env();
  let directoryDown = false;
  if (config.GPUDESK_LDAP_URL) {
    const check = await checkDirectoryPassword(username, password, config);
    if (check.kind === "wrong_password") {
      // The throttle counted this attempt before the check (claimLogin).
      await recordSignInRefusal({ source: "ldap", username, reason: "wrong_password" });
      throw invalidCredentials();
    }
    if (check.kind === "unavailable") {
      log.error(`sso: LDAP cannot answer for ${JSON.stringify(username.slice(0, 64))}: ${check.reason}`);
      directoryDown = true;
    }
    if (check.kind === "ok") {
      const result = await provisionDirectoryUser({ source: "ldap", subject: check.subject, username, name: check.name, unixLogin: check.unixLogin, groups: check.groups });
      if (!result.ok) {
        // The same answer as a wrong password: a refusal after a right one must not tell that it was right.
        await recordSignInRefusal({ source: "ldap", username, reason: result.reason, detail: result.message });
        throw invalidCredentials();
      }
      // A disabled account: better-auth's admin plugin refuses the session here.
      const session = await ctx.context.internalAdapter.createSession(result.user.id);
      const user = await ctx.context.internalAdapter.findUserById(result.user.id);
      if (!session || !user) throw new APIError("INTERNAL_SERVER_ERROR", { message: "The session could not be created" });
      await setSessionCookie(ctx, { session, user });
      await clearLoginCount(claim);
      return ctx.json({ redirect: false, user: { id: user.id, name: user.name, username: result.user.username } });
    }
  }
  if (!config.GPUDESK_LOCAL_PASSWORDS) {
    if (directoryDown) throw new APIError("SERVICE_UNAVAILABLE", { message: "The directory cannot be reached. Try again in a moment." });
    throw invalidCredentials();
  }
  return null;
}
