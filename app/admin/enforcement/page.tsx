import type { Metadata } from "next";
import { HostEnforcementManager } from "@/components/alerts/host-enforcement-manager";
import { PageShell } from "@/app/_components/page-shell";
import { listHostEnforcement } from "@/server/enforcement/host-settings";
import { runningServer } from "@/server/runtime/runtime";

export const metadata: Metadata = { title: "Enforcement" };
export const dynamic = "force-dynamic";

export default function EnforcementPage() {
  return (
    <PageShell
      returnTo="/admin/enforcement"
      admin
      title="Enforcement"
      description={
        <>
          Opt-in, per host: processes in conflict with an active booking get SIGTERM once the conflict has lasted the grace period, then SIGKILL. Never the
          bookedBy&apos;s processes. Only agents started with <code className="font-mono">--allow-enforcement</code> act; every step is in the audit log.
        </>
      }
    >
      <Hosts />
    </PageShell>
  );
}

/** Rendered by PageShell only for admins. */
async function Hosts() {
  const tick = runningServer()?.tick;
  const hosts = await listHostEnforcement((hostId) => tick?.agentAllowsEnforcement(hostId) ?? false);
  return <HostEnforcementManager hosts={hosts} />;
}
