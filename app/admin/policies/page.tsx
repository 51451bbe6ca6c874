import type { Metadata } from "next";
import { PolicyForm } from "@/components/bookings/policy-form";
import { PageShell } from "@/app/_components/page-shell";
import { getPolicy } from "@/server/bookings/rules/policy";
import { IdleExemptions, IdlePolicyForm } from "@/components/idle-release/idle-policy-form";
import { listIdleExemptions } from "@/server/idle-release/idle-exemptions";
import { requirePageAdmin } from "@/server/auth/session";

export const metadata: Metadata = { title: "Booking rules" };
export const dynamic = "force-dynamic";

export default function PoliciesPage() {
  return (
    <PageShell returnTo="/admin/policies" admin width="narrow" title="Booking rules" description="Limits that every new booking and extension must keep.">
      <Policy />
    </PageShell>
  );
}

async function Policy() {
  const policy = await getPolicy();
  const { user } = await requirePageAdmin("/admin/policies");
  return (
    <div className="space-y-6">
      <PolicyForm initial={policy} />
      <IdlePolicyForm initial={policy} />
      <IdleExemptions initial={await listIdleExemptions(user)} />
    </div>
  );
}
