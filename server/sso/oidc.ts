import { genericOAuth, type GenericOAuthUserInfo } from "better-auth/plugins";
import type { Env } from "@/server/env";
import { recordSignInRefusal } from "@/server/sso/sign-in-refusals";

/** Loaded when used: directory-user.ts reaches better-auth.ts (through users.ts), which imports this file. */
const directoryUsers = () => import("@/server/sso/directory-user");

/** better-auth's id of the lab's OpenID Connect provider: its callback is /api/auth/callback/oidc. */
export const OIDC_PROVIDER_ID = "oidc";

/**
 * An address no account has: a refused sign-in maps to it, and better-auth
 * (which may not create accounts itself, see below) answers signup_disabled.
 */
const REFUSED_EMAIL = "refused@sso.gpudesk.invalid";

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
 * Runs when better-auth has verified a sign-in with the provider (the ID
 * token against the provider's keys, the user info for the same subject):
 * the configured claims make the person's gpudesk account
 * (provisionDirectoryUser), and the account's email, which better-auth
 * signs in by (linking the provider's subject to it on first use).
 */
export async function accountForOidcProfile(profile: GenericOAuthUserInfo, config: Env): Promise<{ email: string; name?: string; emailVerified: boolean }> {
  const claims = profile as Record<string, unknown>;
  const subject = typeof claims.sub === "string" || typeof claims.sub === "number" ? String(claims.sub) : "";
  const username = textClaim(claims, config.GPUDESK_OIDC_USERNAME_CLAIM);
  if (!subject || !username) {
    await recordSignInRefusal({ source: "oidc", username: username ?? subject, reason: "no_username_claim", detail: `the profile has no ${subject ? config.GPUDESK_OIDC_USERNAME_CLAIM : "sub"} claim` });
    return { email: REFUSED_EMAIL, emailVerified: false };
  }
  const result = await (await directoryUsers()).provisionDirectoryUser({
    source: OIDC_PROVIDER_ID,
    subject,
    username,
    name: textClaim(claims, "name"),
    unixLogin: config.GPUDESK_OIDC_UNIX_LOGIN_CLAIM ? textClaim(claims, config.GPUDESK_OIDC_UNIX_LOGIN_CLAIM) : undefined,
    groups: listClaim(claims, config.GPUDESK_OIDC_GROUPS_CLAIM),
  });
  if (!result.ok) {
    await recordSignInRefusal({ source: "oidc", username, reason: result.reason, detail: result.message });
    return { email: REFUSED_EMAIL, emailVerified: false };
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
        },
      ],
    }),
  ];
}
