import type { Metadata } from "next";
import { TokenManager } from "@/components/settings/token-manager";
import { PageShell } from "@/app/_components/page-shell";
import { serializeDates } from "@/lib/api-client";
import { requirePageUser } from "@/server/auth/session";
import { listPersonalTokens } from "@/server/auth/tokens";

export const metadata: Metadata = { title: "API tokens" };

const PATH = "/settings/tokens";

export default function TokensPage() {
  return (
    <PageShell
      returnTo={PATH}
      width="narrow"
      title="API tokens"
      description="Personal tokens for scripts and the gpudesk command line. Each acts as you until you revoke it."
    >
      <Tokens />
    </PageShell>
  );
}

/** Rendered by PageShell only once the visitor is signed in. */
async function Tokens() {
  const { user } = await requirePageUser(PATH);
  const tokens = await listPersonalTokens(user.id);
  return <TokenManager initialTokens={tokens.map(serializeDates)} />;
}
