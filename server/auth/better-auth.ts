import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { admin, username } from "better-auth/plugins";
import { PASSWORD_MAX, PASSWORD_MIN } from "@/lib/domain/password";
import { normalizeUsername, usernameSchema } from "@/lib/domain/username";
import { loadAuthSecret } from "@/server/auth/auth-secret";
import { recordAudit } from "@/server/access/audit-log";
import { claimLogin, clearLoginCount, type LoginClaim } from "@/server/auth/login-throttle";
import { CLIENT_IP_HEADER, requestOrigin } from "@/server/auth/request-origin";
import { db } from "@/server/core/db";
import { databaseProvider, env } from "@/server/core/env";
import { disconnectLivePrincipal } from "@/server/access/live-revocation";
import { log } from "@/server/core/log";
import { invalidCredentials, signInPlug } from "@/server/auth/sign-in-plug";

export { CLIENT_IP_HEADER };

/**
 * Each sign-in's claim on the throttle, from the before hook to the after
 * hook: better-auth gives both the same per-request context object.
 */
const signInClaims = new WeakMap<object, LoginClaim>();

function createAuth(secureCookies: boolean) {
  const config = env();
  const publicOrigin = config.GPUDESK_PUBLIC_URL ? new URL(config.GPUDESK_PUBLIC_URL).origin : undefined;
  return betterAuth({
    appName: "gpudesk",
    // gpudesk is reached by whatever name the lab uses (localhost, node name, IP): without
    // GPUDESK_PUBLIC_URL, better-auth takes the origin from each request, which the auth
    // route rebuilds from the Host header and the scheme the custom server saw.
    // (A dynamic `allowedHosts: ["*"]` would also make every origin trusted.)
    baseURL: publicOrigin,
    secret: loadAuthSecret(config.GPUDESK_AUTH_SECRET, config.dataDir),
    // better-auth words some queries per database (e.g. case-insensitive matching on PostgreSQL).
    database: prismaAdapter(db(), { provider: databaseProvider(config.DATABASE_URL) ?? "sqlite" }),
    // Accounts are created by admins (or `gpudesk user add`), never by visitors.
    emailAndPassword: { enabled: true, disableSignUp: true, minPasswordLength: PASSWORD_MIN, maxPasswordLength: PASSWORD_MAX },
    session: {
      expiresIn: config.GPUDESK_SESSION_HOURS * 3600,
      updateAge: 24 * 3600,
    },
    // Signing out (or any end of a session) closes that browser's live sockets at once.
    databaseHooks: {
      session: { delete: { after: async (session) => disconnectLivePrincipal({ kind: "session", id: session.id }) } },
    },
    user: {
      additionalFields: {
        unixLogin: { type: "string", required: false, input: false },
        mustChangePassword: { type: "boolean", required: false, input: false, defaultValue: false },
      },
    },
    plugins: [
      username({ minUsernameLength: 2, maxUsernameLength: 32 }),
      admin({ defaultRole: "member", adminRoles: ["admin"] }),
      ...(signInPlug(config)?.plugins(config) ?? []),
    ],
    // Single sign-on (server/sso/oidc.ts, plugged in by server/main/sign-in.ts) binds the provider's subject to an account itself
    // (provisionDirectoryUser): better-auth signs into the account bound to the subject and
    // never links one by its address.
    account: { accountLinking: { enabled: false } },
    // A refused or failed single sign-on comes back to the sign-in page, which explains ?error=.
    onAPIError: { errorURL: "/login" },
    rateLimit: {
      enabled: true,
      storage: "database",
      window: 60,
      max: 100,
      // Per client address (x-gpudesk-client-ip: the socket's, or the proxy's X-Forwarded-For entry
      // under GPUDESK_TRUST_PROXY) and path, for every sign-in path: the password form, the start of a
      // single sign-on and its callback (better-auth's own 3 per 10 s would stop a lab behind one
      // address at 9 a.m.). Per username is login-throttle's job.
      customRules: {
        "/sign-in/*": { window: 60, max: config.GPUDESK_SIGNIN_PER_MINUTE },
        "/callback/*": { window: 60, max: config.GPUDESK_SIGNIN_PER_MINUTE },
      },
    },
    // Same origin only: the page that posts must come from the host it posts to (or the public URL).
    trustedOrigins: (request) => {
      const own = request ? requestOrigin(request.headers) : null;
      return [own, publicOrigin].filter((origin): origin is string => Boolean(origin));
    },
    logger: {
      log: (level, message) => {
        // Without GPUDESK_PUBLIC_URL the base URL is left unset on purpose (see above).
        if (!publicOrigin && message.includes("Base URL is not set")) return;
        log[level === "error" ? "error" : level === "warn" ? "warn" : "info"](`auth: ${message}`);
      },
    },
    advanced: {
      cookiePrefix: "gpudesk",
      // Explicit, so that tests (where better-auth skips it by default) check origins as production does.
      disableOriginCheck: false,
      disableCSRFCheck: false,
      // A browser drops Secure cookies over plain HTTP on any name but localhost, so they are
      // Secure (and __Secure- prefixed) only where the browser talks HTTPS.
      useSecureCookies: secureCookies,
      defaultCookieAttributes: { sameSite: "lax", httpOnly: true },
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
    },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        // Single sign-on goes through the provider's pages only, never with an ID token posted here.
        if (ctx.path === "/sign-in/social" && ctx.body?.idToken !== undefined) throw new APIError("BAD_REQUEST", { message: "Sign in through the provider" });
        if (ctx.path !== "/sign-in/username") return;
        // One spelling per person before anything counts or binds: slapd takes `ｌｉｎａ` and `𝐥𝐢𝐧𝐚` for `lina`.
        const name = normalizeUsername(typeof ctx.body?.username === "string" ? ctx.body.username : "");
        const ip = ctx.headers?.get(CLIENT_IP_HEADER) ?? null;
        // Counted before the password is checked (atomically), so parallel guesses cannot all be evaluated.
        const { wait, claim } = await claimLogin(name);
        if (wait > 0) {
          await recordSignInAudit("signin.lockout", name, ip, { retryInSeconds: Math.ceil(wait / 1000) });
          throw new APIError("TOO_MANY_REQUESTS", {
            message: `Too many failed sign-ins. Try again in ${Math.ceil(wait / 1000)} s.`,
          });
        }
        // A name no account can have never reaches a directory, and is answered as a wrong password.
        if (!usernameSchema.safeParse(name).success) {
          await recordSignInAudit("signin.failure", name, ip, { reason: "invalid_username" });
          throw invalidCredentials();
        }
        // LDAP, or local passwords switched off: answered there, or null for the local password check.
        if (claim) signInClaims.set(ctx.context, claim);
        const password = typeof ctx.body?.password === "string" ? ctx.body.password : "";
        const plugged = signInPlug(env());
        const answer = plugged ? await plugged.passwordSignIn(ctx, name, password, claim) : localPasswordsOnly();
        if (answer) return answer;
        return { context: { body: { ...ctx.body, username: name } } };
      }),
      after: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== "/sign-in/username") return;
        const name = normalizeUsername(typeof ctx.body?.username === "string" ? ctx.body.username : "");
        const succeeded = Boolean(ctx.context.newSession);
        if (succeeded) await clearLoginCount(signInClaims.get(ctx.context) ?? null);
        if (!succeeded) await recordSignInAudit("signin.failure", name, ctx.headers?.get(CLIENT_IP_HEADER) ?? null, {});
      }),
    },
  });
}

/**
 * A failed or refused sign-in in the audit log: the username tried (which
 * may not exist) and the address it came from, from better-auth's request.
 */
async function recordSignInAudit(action: "signin.failure" | "signin.lockout", username: string, ip: string | null, after: Record<string, unknown>): Promise<void> {
  const tried = normalizeUsername(username).slice(0, 64) || "(none)";
  await recordAudit({ actorId: null, action, entityType: "signin", entityId: tried, ip, via: "web", after: { username: tried, ...after } }).catch((error: unknown) =>
    log.error(`could not record a sign-in in the audit log: ${error instanceof Error ? error.message : String(error)}`),
  );
}

/** Without single sign-on: gpudesk's own password decides, unless local passwords are switched off. */
function localPasswordsOnly(): null {
  if (!env().GPUDESK_LOCAL_PASSWORDS) throw invalidCredentials();
  return null;
}

type Auth = ReturnType<typeof createAuth>;

const shared = globalThis as unknown as { __gpudeskAuth?: { plain?: Auth; secure?: Auth } };

/**
 * The better-auth instance (shared by the custom server and Next's bundles):
 * one that sets Secure cookies for HTTPS requests, one for plain HTTP. With
 * an https GPUDESK_PUBLIC_URL both are secure.
 */
export function auth(secure = false): Auth {
  const instances = (shared.__gpudeskAuth ??= {});
  const wantSecure = secure || env().GPUDESK_PUBLIC_URL?.startsWith("https:") === true;
  if (wantSecure) return (instances.secure ??= createAuth(true));
  return (instances.plain ??= createAuth(false));
}
