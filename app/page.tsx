import type { Metadata } from "next";
import { FleetView } from "@/components/fleet/fleet-view";

export const metadata: Metadata = { title: "Fleet" };

/** Everything on this page is live: the server renders the frame, the socket fills it. */
export default function FleetPage() {
  return <FleetView />;
}
