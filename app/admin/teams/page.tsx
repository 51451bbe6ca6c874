import type { Metadata } from "next";
import { TeamsManager } from "@/components/teams/teams-manager";
import { PageShell } from "@/app/_components/page-shell";
import { listTeams } from "@/server/teams/team-service";
import { listHostSummaries } from "@/server/hosts/host-registry";

export const metadata: Metadata = { title: "Teams" };
export const dynamic = "force-dynamic";

export default function TeamsPage() {
  return (
    <PageShell
      returnTo="/admin/teams"
      admin
      title="Teams"
      description="Who books for which group, the limits each group and person keep, and each group's share of the fleet in the queue."
    >
      <Teams />
    </PageShell>
  );
}

/** Rendered by PageShell only for admins. */
async function Teams() {
  const [teams, hosts] = await Promise.all([listTeams(), listHostSummaries()]);
  return <TeamsManager initialTeams={teams} hostNames={hosts.map((host) => host.name)} />;
}
