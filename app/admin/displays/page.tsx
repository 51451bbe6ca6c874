import type { Metadata } from "next";
import { DisplaysManager } from "@/components/admin/displays-manager";
import { PageShell } from "@/app/_components/page-shell";
import { serializeDates } from "@/lib/api-client";
import { listDisplays } from "@/server/auth/tokens";

export const metadata: Metadata = { title: "Displays" };

export default function DisplaysPage() {
  return (
    <PageShell returnTo="/admin/displays" admin title="Wall displays" description="Screens that show the live fleet without anyone signed in. Each has its own read-only token.">
      <Displays />
    </PageShell>
  );
}

/** Rendered by PageShell only for admins. */
async function Displays() {
  const displays = await listDisplays();
  return <DisplaysManager initialDisplays={displays.map(serializeDates)} />;
}
