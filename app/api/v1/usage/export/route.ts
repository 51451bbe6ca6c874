import { requireUser } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { exportUsageCsv, parseUsageParams } from "@/server/history/usage-service";

export const dynamic = "force-dynamic";

/** `?table=people|hosts` plus the range of the usage page, as a CSV download. */
export const GET = apiHandler(async (request) => {
  const viewer = await requireUser(request);
  const now = Date.now();
  const params = parseUsageParams(new URL(request.url).searchParams, now);
  const { filename, csv } = await exportUsageCsv(viewer, params, now);
  return new Response(csv, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${filename}"`,
      "cache-control": "no-store",
    },
  });
});
