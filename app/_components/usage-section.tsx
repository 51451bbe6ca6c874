import { ZodError } from "zod";
import { requirePageAdmin, requirePageUser } from "@/server/auth/session";
import { loadUsageReport, parseUsageParams } from "@/server/history/usage-service";
import { UsageDashboard } from "@/components/usage/usage-dashboard";
import { HandedBackCard } from "@/components/idle-release/handed-back-card";

type SearchParams = Record<string, string | string[] | undefined>;

/**
 * The data of a usage page, loaded on the server (inside PageShell, after
 * its guard): the whole fleet on /admin/usage, the viewer's own bookings on
 * /usage. A range in the URL that does not parse falls back to 24 hours
 * with a notice rather than an error page.
 */
export async function UsageSection({ searchParams, basePath, fleet }: { searchParams: SearchParams; basePath: string; fleet: boolean }) {
  const viewer = fleet ? await requirePageAdmin(basePath) : await requirePageUser(basePath);
  const now = Date.now();
  let notice: string | null = null;
  let params;
  try {
    params = parseUsageParams(searchParams, now);
  } catch (error) {
    if (!(error instanceof ZodError)) throw error;
    notice = "That time range is not valid; showing the last 24 hours.";
    params = parseUsageParams({}, now);
  }
  const report = await loadUsageReport(viewer, { ...params, scope: fleet ? "all" : "self" }, now);
  return (
    <>
      <UsageDashboard report={report} basePath={basePath} notice={notice} />
      <div className="mt-6">
        <HandedBackCard totals={report.totals} people={report.people} />
      </div>
    </>
  );
}
