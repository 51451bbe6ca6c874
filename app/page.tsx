import type { Metadata } from "next";
import { FleetView } from "@/components/fleet/fleet-view";
import { FlashNotice } from "@/components/ui/flash-notice";
import { PageShell } from "@/app/_components/page-shell";

export const metadata: Metadata = { title: "Fleet" };

interface FleetPageProps {
  searchParams: Promise<{ forbidden?: string }>;
}

/** Everything on this page is live: the server renders the frame, the socket fills it. */
export default async function FleetPage({ searchParams }: FleetPageProps) {
  // requirePageAdmin sends members here with ?forbidden=1.
  const forbidden = (await searchParams).forbidden === "1";
  return (
    <PageShell returnTo="/" bare>
      <FleetView />
      {forbidden && <FlashNotice param="forbidden" message="That page is for admins. Ask an admin if you need something changed there." />}
    </PageShell>
  );
}
