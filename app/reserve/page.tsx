import type { Metadata } from "next";
import { ReserveForm } from "@/components/bookings/reserve-form";
import { PageShell } from "@/app/_components/page-shell";
import { listBookableHosts } from "@/server/bookings/views/bookings-query";
import { getPolicy } from "@/server/bookings/rules/policy";
import { listSlurmBlocks } from "@/server/bookings/views/slurm-blocks";

export const metadata: Metadata = { title: "Reserve GPUs" };
export const dynamic = "force-dynamic";

interface ReservePageProps {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

const PREFILL = ["host", "gpus", "slices", "count", "start", "end", "minutes", "purpose"] as const;

export default async function ReservePage({ searchParams }: ReservePageProps) {
  const raw = await searchParams;
  const query: Record<string, string | undefined> = {};
  for (const key of PREFILL) {
    const value = raw[key];
    if (typeof value === "string") query[key] = value.slice(0, 300);
  }
  const returnTo = `/reserve${Object.keys(query).length ? `?${new URLSearchParams(query as Record<string, string>)}` : ""}`;
  return (
    <PageShell returnTo={returnTo} width="narrow" title="Reserve GPUs" description="Pick GPUs on a host, or ask for any N; the booking holds them for you alone.">
      <ReserveData query={query} />
    </PageShell>
  );
}

/** Loaded only once PageShell has let the person in. */
async function ReserveData({ query }: { query: Record<string, string | undefined> }) {
  const [hosts, policy] = await Promise.all([listBookableHosts(), getPolicy()]);
  const now = Date.now();
  // A week of Slurm's blocks: what a booking from the form can reach.
  const slurm = listSlurmBlocks(new Date(now), new Date(now + 8 * 24 * 3600_000));
  return <ReserveForm hosts={hosts} policy={policy} query={query} slurm={slurm} />;
}
