import type { Metadata } from "next";
import { FleetView } from "@/components/fleet/fleet-view";
import { requirePageUser } from "@/server/auth/session";

export const metadata: Metadata = { title: "Fleet" };

/** Everything on this page is live: the server renders the frame, the socket fills it. */
export default async function FleetPage() {
  await requirePageUser("/");
  return <FleetView />;
}
