import { APIError } from "better-auth/api";
import { genericOAuth, type GenericOAuthUserInfo } from "better-auth/plugins";
import { type Env, isGoogleIssuer } from "@/server/core/env";
import { provisionDirectoryUser } from "@/server/sso/directory-user";
import { recordSignInRefusal } from "@/server/sso/sign-in-refusals";

/** better-auth's id of the lab's OpenID Connect provider: its callback is /api/auth/callback/oidc. */
export const OIDC_PROVIDER_ID = "oidc";

/**
 * Where a refused sign-in goes: the sign-in page, which explains the code
 * (ssoErrorMessage). Thrown from inside better-auth's callback as the
 * redirect its own endpoints throw, so a refusal ends there and never
 * reaches the step that finds an account by address and opens a session.
 */
function refusedRedirect(code: string): APIError {
  return new APIError("FOUND", undefined, new Headers({ location: `/login?error=${code}` }));
}

/** A claim by name, or by a dotted path into nested claims (Keycloak's realm_access.roles). */
function claim(claims: Record<string, unknown>, name: string): unknown {
  if (name in claims) return claims[name];
  let value: unknown = claims;
  for (const part of name.split(".")) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function textClaim(claims: Record<string, unknown>, name: string): string | undefined {
  const value = claim(claims, name);
  return typeof value === "string" && value.trim() ? value.trim().slice(0, 256) : undefined;
}

function listClaim(claims: Record<string, unknown>, name: string): string[] {
  const value = claim(claims, name);
  const items = Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
  return items.filter((item): item is string => typeof item === "string").slice(0, 1000).map((item) => item.slice(0, 512));
}

/**
 * Why the provider's word is not enough for this name, or null: with the
 * e-mail address as the username claim, the provider must say it verified
 * it; a name with an `@domain` must be of an allowed domain
 * (GPUDESK_OIDC_ALLOWED_DOMAINS), whatever the claim; with Google as the
 * issuer, where any Google account signs in, the Workspace domain (`hd`)
 * must be an allowed one.
 */
export function oidcIdentityRefusal(
  claims: Record<string, unknown>,
  username: string,
  config: Pick<Env, "GPUDESK_OIDC_ISSUER" | "GPUDESK_OIDC_USERNAME_CLAIM" | "GPUDESK_OIDC_ALLOWED_DOMAINS">,
): { reason: "email_not_verified" | "domain_not_allowed"; detail: string } | null {
  const allowed = config.GPUDESK_OIDC_ALLOWED_DOMAINS;
  if (config.GPUDESK_OIDC_ISSUER && isGoogleIssuer(config.GPUDESK_OIDC_ISSUER)) {
    const hd = textClaim(claims, "hd")?.toLowerCase();
    if (!hd || !allowed.includes(hd)) return { reason: "domain_not_allowed", detail: `the Google account's Workspace domain (hd) is ${hd ?? "none"}, not one of GPUDESK_OIDC_ALLOWED_DOMAINS` };
  }
  if (config.GPUDESK_OIDC_USERNAME_CLAIM === "email" && claims.email_verified !== true && claims.email_verified !== "true") {
    return { reason: "email_not_verified", detail: "the provider does not say it verified the e-mail address" };
  }
  const at = username.lastIndexOf("@");
  if (at >= 0) {
    const domain = username.slice(at + 1).toLowerCase();
    if (!allowed.includes(domain)) return { reason: "domain_not_allowed", detail: `${domain} is not one of GPUDESK_OIDC_ALLOWED_DOMAINS (${allowed.join(", ") || "none set"})` };
  }
  return null;
}

/**
 * Runs when better-auth has verified a sign-in with the provider (the ID
 * token against the provider's keys, the user info for the same subject):
 * the configured claims make or find the person's gpudesk account
 * (provisionDirectoryUser, which binds the account to the provider's
 * subject), and better-auth signs into the account bound to that subject.
 * A refusal is recorded and redirects to the sign-in page with its reason.
 */
export async function accountForOidcProfile(profile: GenericOAuthUserInfo, config: Env): Promise<{ email: string; name?: string; emailVerified: boolean }> {
  const claims = profile as Record<string, unknown>;
  const subject = typeof claims.sub === "string" || typeof claims.sub === "number" ? String(claims.sub) : "";
  const username = textClaim(claims, config.GPUDESK_OIDC_USERNAME_CLAIM);
  if (!subject || !username) {
    await recordSignInRefusal({ source: "oidc", username: username ?? subject, reason: "no_username_claim", detail: `the profile has no ${subject ? config.GPUDESK_OIDC_USERNAME_CLAIM : "sub"} claim` });
    throw refusedRedirect("no_username_claim");
  }
  const refusal = oidcIdentityRefusal(claims, username, config);
  if (refusal) {
    await recordSignInRefusal({ source: "oidc", username, ...refusal });
    throw refusedRedirect(refusal.reason);
  }
  const result = await provisionDirectoryUser({
    source: OIDC_PROVIDER_ID,
    subject,
    username,
    name: textClaim(claims, "name"),
    unixLogin: config.GPUDESK_OIDC_UNIX_LOGIN_CLAIM ? textClaim(claims, config.GPUDESK_OIDC_UNIX_LOGIN_CLAIM) : undefined,
    groups: listClaim(claims, config.GPUDESK_OIDC_GROUPS_CLAIM),
  });
  if (!result.ok) {
    await recordSignInRefusal({ source: "oidc", username, reason: result.reason, detail: result.message });
    throw refusedRedirect(result.reason === "not_registered" ? "signup_disabled" : result.reason === "not_linked" ? "account_not_linked" : result.reason);
  }
  return { email: result.user.email, emailVerified: true };
}

/** better-auth's generic OAuth plugin for GPUDESK_OIDC_ISSUER; none when OIDC is not configured. */
export function oidcPlugins(config: Env) {
  if (!config.GPUDESK_OIDC_ISSUER || !config.GPUDESK_OIDC_CLIENT_ID) return [];
  const issuer = config.GPUDESK_OIDC_ISSUER.endsWith("/") ? config.GPUDESK_OIDC_ISSUER : `${config.GPUDESK_OIDC_ISSUER}/`;
  return [
    genericOAuth({
      config: [
        {
          providerId: OIDC_PROVIDER_ID,
          name: config.GPUDESK_OIDC_NAME,
          discoveryUrl: new URL(".well-known/openid-configuration", issuer).href,
          clientId: config.GPUDESK_OIDC_CLIENT_ID,
          clientSecret: config.GPUDESK_OIDC_CLIENT_SECRET,
          scopes: config.GPUDESK_OIDC_SCOPES.split(/\s+/).filter(Boolean),
          pkce: true,
          // Identity comes from the ID token's claims: never from an unverified one.
          requireIdTokenVerification: true,
          // gpudesk creates accounts itself, by its own rule (GPUDESK_SSO_CREATE_USERS), in mapProfileToUser.
          disableSignUp: true,
          mapProfileToUser: (profile) => accountForOidcProfile(profile, config),
          // Signing out of gpudesk signs out of the provider too (RP-initiated logout) where its discovery names
          // an end_session_endpoint: better-auth's /sign-out answers that address and the page goes there.
          disableProviderLogout: !config.GPUDESK_OIDC_PROVIDER_LOGOUT,
          // Back to gpudesk's sign-in page afterwards, where the public address is known (register it at the provider).
          ...(config.GPUDESK_PUBLIC_URL ? { postLogoutRedirectURI: new URL("/login", config.GPUDESK_PUBLIC_URL).href } : {}),
        },
      ],
    }),
  ];
}
