import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { admin, username } from "better-auth/plugins";
import { loadAuthSecret } from "@/server/auth/auth-secret";
import { checkLoginAllowed, recordLoginResult } from "@/server/auth/login-throttle";
import { db } from "@/server/db";
import { databaseProvider, env } from "@/server/env";

/** The header the custom server sets to the client's address (incoming copies are dropped). */
export const CLIENT_IP_HEADER = "x-gpudesk-client-ip";

function createAuth() {
  const config = env();
  return betterAuth({
    appName: "gpudesk",
    // gpudesk is reached by whatever name the lab uses (localhost, node name, IP);
    // GPUDESK_PUBLIC_URL pins it when a proxy or TLS front sits before it.
    baseURL: config.GPUDESK_PUBLIC_URL ?? { allowedHosts: ["*"], protocol: "auto", fallback: `http://localhost:${config.PORT}` },
    secret: loadAuthSecret(config.GPUDESK_AUTH_SECRET, config.dataDir),
    // better-auth words some queries per database (e.g. case-insensitive matching on PostgreSQL).
    database: prismaAdapter(db(), { provider: databaseProvider(config.DATABASE_URL) ?? "sqlite" }),
    // Accounts are created by admins (or `gpudesk user add`), never by visitors.
    emailAndPassword: { enabled: true, disableSignUp: true, minPasswordLength: 8, maxPasswordLength: 256 },
    session: {
      expiresIn: config.GPUDESK_SESSION_HOURS * 3600,
      updateAge: 24 * 3600,
    },
    user: {
      additionalFields: {
        unixLogin: { type: "string", required: false, input: false },
      },
    },
    plugins: [
      username({ minUsernameLength: 2, maxUsernameLength: 32 }),
      admin({ defaultRole: "member", adminRoles: ["admin"] }),
    ],
    rateLimit: {
      enabled: true,
      storage: "database",
      window: 60,
      max: 100,
      // Per address; per user is login-throttle's job.
      customRules: {
        "/sign-in/username": { window: 60, max: config.GPUDESK_SIGNIN_PER_MINUTE },
        "/sign-in/email": { window: 60, max: config.GPUDESK_SIGNIN_PER_MINUTE },
      },
    },
    // Same-origin only: the page that posts must come from the host it posts to.
    trustedOrigins: (request) => {
      const host = request?.headers.get("host");
      return host ? [`http://${host}`, `https://${host}`] : [];
    },
    advanced: {
      cookiePrefix: "gpudesk",
      defaultCookieAttributes: { sameSite: "lax", httpOnly: true },
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
    },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== "/sign-in/username") return;
        const name = typeof ctx.body?.username === "string" ? ctx.body.username : "";
        const wait = await checkLoginAllowed(name);
        if (wait > 0) {
          throw new APIError("TOO_MANY_REQUESTS", {
            message: `Too many failed sign-ins. Try again in ${Math.ceil(wait / 1000)} s.`,
          });
        }
      }),
      after: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== "/sign-in/username") return;
        const name = typeof ctx.body?.username === "string" ? ctx.body.username : "";
        await recordLoginResult(name, Boolean(ctx.context.newSession));
      }),
    },
  });
}

type Auth = ReturnType<typeof createAuth>;

const holder = globalThis as unknown as { __gpudeskAuth?: Auth };

/** The better-auth instance (one per process, shared by the custom server and Next's bundles). */
export function auth(): Auth {
  holder.__gpudeskAuth ??= createAuth();
  return holder.__gpudeskAuth;
}
