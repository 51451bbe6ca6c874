import { handshakeFromSameOrigin, sessionOf } from "@/server/auth/authenticate";
import { authenticateToken } from "@/server/auth/tokens";
import type { LiveViewer } from "@/server/access/live-revocation";

/**
 * Who a `/live` handshake stands for: a display token, a personal token,
 * or the session cookie, read as the REST API reads it (`sessionOf`: the
 * secure instance for a __Secure- cookie) and only from a page of this
 * host (Origin); null for nobody, a disabled person, or one who must first
 * replace a temporary password. The one check for
 * every `/live` handler: they read its answer from the socket
 * (`liveViewerOf` in server/live/live-endpoint.ts).
 */
export async function authenticateLiveViewer({ headers, token }: { headers: Headers; token: string | null }): Promise<LiveViewer | null> {
  if (token) {
    const principal = await authenticateToken(token);
    // A temporary password (an admin's reset) closes the feed to the person's tokens as to their sessions.
    if (!principal || (principal.kind === "user" && principal.user.mustChangePassword)) return null;
    return principal.kind === "display"
      ? { kind: "display", displayId: principal.display.id, namesUnbookedRunner: principal.display.namesUnbookedRunner }
      : { kind: "user", userId: principal.user.id, role: principal.user.role, sessionId: null, tokenId: principal.tokenId ?? null };
  }
  if (!handshakeFromSameOrigin(headers)) return null;
  const session = await sessionOf(headers);
  if (!session || session.principal.user.mustChangePassword) return null;
  return { kind: "user", userId: session.principal.user.id, role: session.principal.user.role, sessionId: session.sessionId };
}
