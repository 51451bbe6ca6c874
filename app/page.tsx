import type { Metadata } from "next";
import { FleetView } from "@/components/fleet/fleet-view";
import { FlashNotice } from "@/components/ui/flash-notice";
import { PageShell } from "@/app/_components/page-shell";
import { runningServer } from "@/server/runtime/runtime";

export const metadata: Metadata = { title: "Fleet" };

interface FleetPageProps {
  searchParams: Promise<{ forbidden?: string }>;
}

/**
 * The fleet as the signed-in person's `/live` socket would show it now (the
 * member scope's own snapshot, server/live/live-endpoint.ts), in the page's
 * HTML: its values are drawn at once instead of after the socket's round
 * trips; the socket's snapshot replaces it. Rendered inside PageShell, so
 * only after its guard: a visitor who is not signed in gets none.
 */
function LiveFleetView() {
  return <FleetView initial={runningServer()?.liveMemberSnapshot?.() ?? null} />;
}

/** Everything on this page is live: the server renders the fleet as it is, the socket keeps it so. */
export default async function FleetPage({ searchParams }: FleetPageProps) {
  // requirePageAdmin sends members here with ?forbidden=1.
  const forbidden = (await searchParams).forbidden === "1";
  return (
    <PageShell returnTo="/" bare>
      <LiveFleetView />
      {forbidden && <FlashNotice param="forbidden" message="That page is for admins. Ask an admin if you need something changed there." />}
    </PageShell>
  );
}
