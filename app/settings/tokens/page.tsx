import type { Metadata } from "next";
import { headers } from "next/headers";
import { CalendarFeeds } from "@/components/settings/calendar-feeds";
import { TokenManager } from "@/components/settings/token-manager";
import { PageShell } from "@/app/_components/page-shell";
import { serializeDates } from "@/lib/api-client";
import { requirePageUser } from "@/server/auth/session";
import { listPersonalTokens } from "@/server/auth/tokens";
import { listCalendarFeeds } from "@/server/calendar/calendar-feed";
import { env } from "@/server/core/env";
import { publicServerUrl } from "@/server/http/public-url";

export const metadata: Metadata = { title: "API tokens" };

const PATH = "/settings/tokens";

export default function TokensPage() {
  return (
    <PageShell
      returnTo={PATH}
      width="narrow"
      title="API tokens"
      description="Personal tokens for scripts and the gpudesk command line (each acts as you until you revoke it), and the addresses of your calendar feeds."
    >
      <Tokens />
    </PageShell>
  );
}

/** Rendered by PageShell only once the visitor is signed in. */
async function Tokens() {
  const { user } = await requirePageUser(PATH);
  const [tokens, feeds] = await Promise.all([listPersonalTokens(user.id), listCalendarFeeds(user)]);
  const origin = publicServerUrl(await headers(), env());
  return (
    <div className="space-y-8">
      <TokenManager initialTokens={tokens.map(serializeDates)} />
      <CalendarFeeds mine={`${origin}${feeds.mine}`} hosts={feeds.hosts.map((host) => ({ name: host.name, url: `${origin}${host.path}` }))} />
    </div>
  );
}
