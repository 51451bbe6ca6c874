import type { Metadata } from "next";
import { PageShell } from "@/app/_components/page-shell";
import { UsageSection } from "@/app/_components/usage-section";
import { HandedBackCard } from "@/components/idle-release/handed-back-card";
import { parseUsageParams } from "@/server/history/usage-service";
import { handedBackByIdleRelease } from "@/server/idle-release/handed-back";
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
      <HandedBack searchParams={await searchParams} />
      <div className="mt-8">
        <TeamUsageSection searchParams={await searchParams} basePath="/admin/usage" />
      </div>
    </PageShell>
  );
}

/** Idle release's figure for the page's range (the default range when the URL's does not parse). */
async function HandedBack({ searchParams }: { searchParams: Record<string, string | string[] | undefined> }) {
  const now = Date.now();
  let range;
  try {
    range = parseUsageParams(searchParams, now).range;
  } catch {
    range = parseUsageParams({}, now).range;
  }
  return (
    <div className="mt-6">
      <HandedBackCard handedBack={await handedBackByIdleRelease(range.fromMs, range.toMs)} />
    </div>
  );
}
