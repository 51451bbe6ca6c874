import { auth } from "@/server/auth/better-auth";
import type { Principal, UserPrincipal } from "@/server/access/principal";
import { authenticateToken, toRole } from "@/server/auth/tokens";
import { AppError } from "@/server/core/errors";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * A cookie travels with cross-site requests too; a change made with one
 * must come from a page of this very host (Origin, or Referer when a
 * browser omits Origin). Bearer tokens are not sent by browsers on their
 * own, so they need no such check.
 */
export function assertSameOrigin(headers: Headers, method: string): void {
  if (SAFE_METHODS.has(method.toUpperCase())) return;
  const host = headers.get("host");
  const origin = headers.get("origin") ?? refererOrigin(headers.get("referer"));
  if (!host || !origin) throw new AppError("forbidden", "Cross-site request refused: no Origin header");
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    throw new AppError("forbidden", "Cross-site request refused: bad Origin header");
  }
  if (originHost !== host) throw new AppError("forbidden", "Cross-site request refused");
}

function refererOrigin(referer: string | null): string | null {
  if (!referer) return null;
  try {
    return new URL(referer).origin;
  } catch {
    return null;
  }
}

/**
 * For a socket handshake with a session cookie (`/live`): a browser sends
 * Origin with every WebSocket and every cross-origin request, so one that
 * names another host (a page on another port of the same machine: a
 * notebook, a dashboard) is refused, with the comparison of
 * `assertSameOrigin`. Without Origin (nor Referer) it is no cross-site
 * browser request: a same-origin polling request, or a program.
 */
export function handshakeFromSameOrigin(headers: Headers): boolean {
  const origin = headers.get("origin") ?? refererOrigin(headers.get("referer"));
  if (!origin) return true;
  try {
    return new URL(origin).host === headers.get("host");
  } catch {
    return false;
  }
}

/**
 * The signed-in person and their session from the session cookie, or
 * null. A browser keeps a __Secure- cookie only from an HTTPS page, so its
 * presence tells which instance set it; both verify with the same secret.
 */
export async function sessionOf(headers: Headers): Promise<{ principal: UserPrincipal; sessionId: string } | null> {
  const secure = /(?:^|;\s*)__Secure-gpudesk\./.test(headers.get("cookie") ?? "");
  const session = await auth(secure).api.getSession({ headers });
  if (!session || session.user.banned) return null;
  const user = session.user as typeof session.user & { unixLogin?: string | null; mustChangePassword?: boolean | null };
  return {
    sessionId: session.session.id,
    principal: {
      kind: "user",
      via: "session",
      user: {
        id: user.id,
        username: user.username ?? user.name,
        name: user.name,
        role: toRole(user.role),
        unixLogin: user.unixLogin ?? null,
        ...(user.mustChangePassword ? { mustChangePassword: true } : {}),
      },
    },
  };
}

/** A signed-in person from the session cookie, or null. */
export async function sessionPrincipal(headers: Headers): Promise<Principal | null> {
  return (await sessionOf(headers))?.principal ?? null;
}

/** Who is asking: a bearer token first (CLI, scripts, displays), then the session cookie. */
export async function authenticateRequest(request: Request): Promise<Principal | null> {
  const header = request.headers.get("authorization");
  if (header) {
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw new AppError("unauthorized", "Authorization must be 'Bearer <token>'");
    const principal = await authenticateToken(match[1]);
    if (!principal) throw new AppError("unauthorized", "Invalid or revoked token");
    return principal;
  }
  const principal = await sessionPrincipal(request.headers);
  if (principal) assertSameOrigin(request.headers, request.method);
  return principal;
}
