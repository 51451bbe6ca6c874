import type { Metadata } from "next";
import { AuditTable } from "@/components/admin/audit-table";
import { controlClass } from "@/components/forms/field";
import { buttonClass } from "@/components/ui/button-styles";
import { PageShell } from "@/app/_components/page-shell";
import { AUDIT_KINDS, auditQuerySchema } from "@/lib/domain/audit";
import { getPageUser } from "@/server/auth/session";
import { listAudit } from "@/server/access/audit-log";

export const metadata: Metadata = { title: "Audit log" };
export const dynamic = "force-dynamic";

const SPANS = { "1h": 3_600_000, "24h": 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000, "90d": 90 * 86_400_000 } as const;
type Span = keyof typeof SPANS;

interface Filters {
  kind?: string;
  person?: string;
  span?: string;
  cursor?: string;
}

interface AuditPageProps {
  searchParams: Promise<Filters>;
}

export default async function AuditPage({ searchParams }: AuditPageProps) {
  const params = await searchParams;
  return (
    <PageShell
      returnTo="/admin/audit"
      admin
      title="Audit log"
      description="Every admin and security action: who, when, from which address, and what it was before and after."
    >
      <Audit filters={params} />
    </PageShell>
  );
}

function hrefWith(filters: Filters, cursor: string): string {
  const query = new URLSearchParams();
  for (const key of ["kind", "person", "span"] as const) if (filters[key]) query.set(key, filters[key]);
  query.set("cursor", cursor);
  return `/admin/audit?${query}`;
}

async function Audit({ filters }: { filters: Filters }) {
  const principal = await getPageUser();
  if (!principal) return null;
  const span = filters.span && filters.span in SPANS ? (filters.span as Span) : undefined;
  const parsed = auditQuerySchema.safeParse({
    limit: 50,
    cursor: filters.cursor,
    kind: filters.kind || undefined,
    person: filters.person || undefined,
    since: span ? new Date(Date.now() - SPANS[span]).toISOString() : undefined,
  });
  const query = parsed.success ? parsed.data : { limit: 50 };
  const page = await listAudit(principal.user, query);
  return (
    <div className="space-y-4">
      <form method="get" role="search" aria-label="Filter the audit log" className="flex flex-wrap items-end gap-3">
        <label className="text-sm font-medium">
          <span className="mb-1 block">Kind</span>
          <select name="kind" defaultValue={filters.kind ?? ""} className={`${controlClass} py-1.5`}>
            <option value="">All</option>
            {Object.entries(AUDIT_KINDS).map(([kind, label]) => (
              <option key={kind} value={kind}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label className="text-sm font-medium">
          <span className="mb-1 block">Person</span>
          <input name="person" defaultValue={filters.person ?? ""} placeholder="username" maxLength={64} spellCheck={false} autoCapitalize="none" className={`${controlClass} w-40 py-1.5 font-mono`} />
        </label>
        <label className="text-sm font-medium">
          <span className="mb-1 block">When</span>
          <select name="span" defaultValue={span ?? ""} className={`${controlClass} py-1.5`}>
            <option value="">Any time</option>
            <option value="1h">Last hour</option>
            <option value="24h">Last 24 hours</option>
            <option value="7d">Last 7 days</option>
            <option value="30d">Last 30 days</option>
            <option value="90d">Last 90 days</option>
          </select>
        </label>
        <button type="submit" className={buttonClass("secondary", "sm")}>
          Filter
        </button>
      </form>
      {!parsed.success && <p role="alert" className="text-sm text-red-700 dark:text-red-300">These filters are not valid; showing everything.</p>}
      <AuditTable entries={page.entries} olderHref={page.nextCursor ? hrefWith(filters, page.nextCursor) : null} />
    </div>
  );
}
