import type { Metadata } from "next";
import { PageShell } from "@/app/_components/page-shell";
import { UsageSection } from "@/app/_components/usage-section";
import { TeamUsageSection } from "@/app/usage/team-usage-section";

export const metadata: Metadata = { title: "My usage" };

interface PageProps {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

/** A member's own GPU time: what they booked, how much of it they used. */
export default async function MyUsagePage({ searchParams }: PageProps) {
  return (
    <PageShell returnTo="/usage" title="My usage" description="The GPU time you booked and how much of it your jobs used." width="wide">
      <UsageSection searchParams={await searchParams} basePath="/usage" fleet={false} />
      {/* A team lead also sees their team's usage here. */}
      <div className="mt-8">
        <TeamUsageSection searchParams={await searchParams} basePath="/usage" />
      </div>
    </PageShell>
  );
}
