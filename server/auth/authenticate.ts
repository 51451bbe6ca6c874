import { auth } from "@/server/auth/better-auth";
import type { Principal } from "@/server/auth/principal";
import { authenticateToken, toRole } from "@/server/auth/tokens";
import { AppError } from "@/server/errors";

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

/** A signed-in person from the session cookie, or null. */
export async function sessionPrincipal(headers: Headers): Promise<Principal | null> {
  // A browser keeps a __Secure- cookie only from an HTTPS page, so its presence tells which
  // instance set it; both verify with the same secret.
  const secure = /(?:^|;\s*)__Secure-gpudesk\./.test(headers.get("cookie") ?? "");
  const session = await auth(secure).api.getSession({ headers });
  if (!session || session.user.banned) return null;
  const user = session.user as typeof session.user & { unixLogin?: string | null; mustChangePassword?: boolean | null };
  return {
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
  };
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
