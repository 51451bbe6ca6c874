import type { Metadata } from "next";
import { HostsManager } from "@/components/admin/hosts-manager";
import { PageShell } from "@/components/ui/page-shell";
import { serializeDates } from "@/lib/api-client";
import { listHostSummaries } from "@/server/hosts/host-registry";

export const metadata: Metadata = { title: "Hosts" };

export default function HostsPage() {
  return (
    <PageShell returnTo="/admin/hosts" admin title="Hosts" description="The GPU servers that report to gpudesk, each through an agent with its own token.">
      <Hosts />
    </PageShell>
  );
}

/** Rendered by PageShell only for admins. */
async function Hosts() {
  const hosts = await listHostSummaries();
  return <HostsManager initialHosts={hosts.map(serializeDates)} />;
}
