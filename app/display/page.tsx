import type { Metadata } from "next";
import { DisplayMessage } from "@/components/display/display-message";
import { DisplayView } from "@/components/display/display-view";
import { parseDisplayQuery } from "@/lib/display-query";
import { getPageUser } from "@/server/auth/session";
import { DISPLAY_TOKEN_PREFIX, PERSONAL_TOKEN_PREFIX, authenticateToken } from "@/server/auth/tokens";

export const metadata: Metadata = {
  title: "Wall display",
  // The token is in the address: never send it on to another site.
  referrer: "no-referrer",
  robots: { index: false, follow: false },
};

interface DisplayPageProps {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

/**
 * `/display?token=gpd_disp_…` on a wall screen, or `/display` in a signed-in
 * browser. Nobody signs in at a wall: a missing or refused token gets a
 * full-screen explanation, never the sign-in form.
 */
export default async function DisplayPage({ searchParams }: DisplayPageProps) {
  const query = parseDisplayQuery(await searchParams);

  if (query.token !== null) {
    if (query.token.startsWith(PERSONAL_TOKEN_PREFIX)) {
      // A personal token can change bookings; in an address it would end up in browser history and proxy logs.
      return (
        <DisplayMessage title="Use a display token here, not a personal token">
          <p>Personal tokens act as their owner and must not sit in a screen&apos;s address. Revoke this one and ask an admin for a display token:</p>
          <p className="font-mono">gpudesk display add NAME</p>
        </DisplayMessage>
      );
    }
    const principal = query.token.startsWith(DISPLAY_TOKEN_PREFIX) ? await authenticateToken(query.token) : null;
    if (principal?.kind !== "display") {
      return (
        <DisplayMessage title="This display link is not valid">
          <p>The token in the address is unknown or has been revoked.</p>
          <p>
            An admin creates a new one with <span className="font-mono">gpudesk display add NAME</span> and opens{" "}
            <span className="font-mono">/display?token=…</span> on this screen.
          </p>
        </DisplayMessage>
      );
    }
    return <DisplayView token={query.token} hostNames={query.hosts} rotateSeconds={query.rotateSeconds} layout={query.layout} />;
  }

  if (!(await getPageUser())) {
    return (
      <DisplayMessage title="This screen needs a display link">
        <p>
          Open <span className="font-mono">/display?token=…</span> with a display token (an admin creates one with{" "}
          <span className="font-mono">gpudesk display add NAME</span>), or sign in on this browser first.
        </p>
      </DisplayMessage>
    );
  }
  return <DisplayView token={null} hostNames={query.hosts} rotateSeconds={query.rotateSeconds} layout={query.layout} />;
}
