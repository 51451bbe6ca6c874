import type { Metadata } from "next";
import { PolicyForm } from "@/components/reservations/policy-form";
import { PageShell } from "@/app/_components/page-shell";
import { getPolicy } from "@/server/reservations/policy";

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
  return <PolicyForm initial={await getPolicy()} />;
}
