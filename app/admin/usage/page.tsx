import type { Metadata } from "next";
import { PageShell } from "@/app/_components/page-shell";
import { UsageSection } from "@/app/_components/usage-section";
import { TeamUsageSection } from "@/app/usage/team-usage-section";

export const metadata: Metadata = { title: "Usage" };

interface PageProps {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

/** How much of the fleet is really used, by whom, and how much booked time is idle (admins). */
export default async function AdminUsagePage({ searchParams }: PageProps) {
  return (
    <PageShell
      returnTo="/admin/usage"
      admin
      title="Usage"
      description="How much of the fleet is used, by whom, and how much booked GPU time sits idle."
      width="wide"
    >
      <UsageSection searchParams={await searchParams} basePath="/admin/usage" fleet />
      <div className="mt-8">
        <TeamUsageSection searchParams={await searchParams} basePath="/admin/usage" />
      </div>
    </PageShell>
  );
}
