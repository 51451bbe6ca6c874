import type { Metadata } from "next";
import { headers } from "next/headers";
import { HostsManager } from "@/components/admin/hosts-manager";
import { PageShell } from "@/app/_components/page-shell";
import { serializeDates } from "@/lib/api-client";
import { env } from "@/server/core/env";
import { hostBundleChecksum } from "@/server/main/serve-downloads";
import { listHostSummaries } from "@/server/hosts/host-registry";
import { publicServerUrl } from "@/server/http/public-url";
import { slurmConnection } from "@/server/slurm/slurm-connection";
import { SlurmClusterState } from "@/components/admin/slurm-cluster-state";

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
  // The address in the install line is the one GPU hosts will use: GPUDESK_PUBLIC_URL, else the one this page was asked on.
  const serverUrl = publicServerUrl(await headers(), env());
  const connection = slurmConnection();
  return (
    <>
      {connection && <SlurmClusterState view={connection.view()} />}
      <HostsManager initialHosts={hosts.map(serializeDates)} serverUrl={serverUrl} bundleSha256={hostBundleChecksum()} slurmNodes={connection?.status.nodes ?? null} />
    </>
  );
}
