import { auth } from "@/server/auth/better-auth";
import { authenticateToken, toRole } from "@/server/auth/tokens";
import type { LiveViewer } from "@/server/fleet/live-revocation";

/**
 * Who a `/live` handshake stands for: a display token, a personal token,
 * or the session cookie (with its session's id, so that signing out closes
 * that browser's sockets); null for nobody or a disabled person.
 */
export async function authenticateLiveViewer({ headers, token }: { headers: Headers; token: string | null }): Promise<LiveViewer | null> {
  if (token) {
    const principal = await authenticateToken(token);
    if (!principal) return null;
    return principal.kind === "display"
      ? { kind: "display", displayId: principal.display.id }
      : { kind: "user", userId: principal.user.id, role: principal.user.role, sessionId: null, tokenId: principal.tokenId ?? null };
  }
  const session = await auth().api.getSession({ headers });
  if (!session || session.user.banned) return null;
  return { kind: "user", userId: session.user.id, role: toRole(session.user.role), sessionId: session.session.id };
}
