import type { Metadata } from "next";
import Link from "next/link";
import { alertQueryOf, alertQuerySchema, parseAlertFilters } from "@/lib/domain/alerts";
import { AlertsView } from "@/components/alerts/alerts-view";
import { buttonClass } from "@/components/ui/button-styles";
import { PageShell } from "@/app/_components/page-shell";
import { listAlerts, listHostNames } from "@/server/alerts/alert-queries";
import { getPageUser } from "@/server/auth/session";
import { can } from "@/server/access/permissions";

export const metadata: Metadata = { title: "Alerts" };
export const dynamic = "force-dynamic";

type SearchParams = Record<string, string | string[] | undefined>;

export default async function AlertsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const query = new URLSearchParams(Object.entries(params).flatMap(([key, value]) => (typeof value === "string" ? [[key, value]] : [])));
  return (
    <PageShell
      returnTo={`/alerts${query.size > 0 ? `?${query}` : ""}`}
      title="Alerts"
      description="Where what runs on the GPUs and what was booked disagree, or a GPU or host needs attention."
      actions={<AlertActions />}
    >
      <Alerts params={params} />
    </PageShell>
  );
}

async function AlertActions() {
  const principal = await getPageUser();
  return (
    <>
      <Link href="/alerts/notifications" className={buttonClass("secondary")}>
        Notify me
      </Link>
      {can.administerAs(principal) && (
        <>
          <Link href="/admin/notifications" className={buttonClass("secondary")}>
            Webhooks and log
          </Link>
          <Link href="/admin/enforcement" className={buttonClass("secondary")}>
            Enforcement
          </Link>
        </>
      )}
    </>
  );
}

/** Rendered by PageShell after its guard: the person is signed in. */
async function Alerts({ params }: { params: SearchParams }) {
  const principal = await getPageUser();
  if (!principal) return null;
  const filters = parseAlertFilters(params);
  const [page, hosts] = await Promise.all([
    listAlerts(principal.user, alertQuerySchema.parse(alertQueryOf(filters, Date.now()))),
    listHostNames(),
  ]);
  const focus = typeof params.alert === "string" ? params.alert.slice(0, 64) : null;
  return <AlertsView initial={page.alerts} initialFilters={filters} hosts={hosts} focusId={focus} />;
}
