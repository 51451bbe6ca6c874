import type { Metadata } from "next";
import { AuditTable } from "@/components/reservations/audit-table";
import { PageShell } from "@/app/_components/page-shell";
import { getPageUser } from "@/server/auth/session";
import { listAudit } from "@/server/reservations/audit-log";

export const metadata: Metadata = { title: "Audit log" };
export const dynamic = "force-dynamic";

interface AuditPageProps {
  searchParams: Promise<{ cursor?: string }>;
}

export default async function AuditPage({ searchParams }: AuditPageProps) {
  const cursor = (await searchParams).cursor?.slice(0, 64);
  return (
    <PageShell returnTo="/admin/audit" admin title="Audit log" description="Every booking made, extended, shortened, released or cancelled, and every change of the rules.">
      <Audit cursor={cursor} />
    </PageShell>
  );
}

async function Audit({ cursor }: { cursor?: string }) {
  const principal = await getPageUser();
  if (!principal) return null;
  const page = await listAudit(principal.user, { limit: 50, cursor });
  return <AuditTable entries={page.entries} nextCursor={page.nextCursor} />;
}
