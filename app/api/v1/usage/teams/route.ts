import { NextResponse } from "next/server";
import { requireUser } from "@/server/auth/guard";
import { env } from "@/server/core/env";
import { apiHandler } from "@/server/http/api-handler";
import { parseTeamUsageParams, teamUsageCsv } from "@/server/teams/team-usage-params";
import { getTeamUsage } from "@/server/teams/team-usage";

export const dynamic = "force-dynamic";

/** Usage per team and per person (admins: every team; a lead: theirs); `?format=csv` as a file. */
export const GET = apiHandler(async (request) => {
  const { user } = await requireUser(request);
  const nowMs = Date.now();
  const params = parseTeamUsageParams(new URL(request.url).searchParams, nowMs);
  const report = await getTeamUsage(user, {
    fromMs: params.range.fromMs,
    toMs: params.range.toMs,
    nowMs,
    minuteRetentionMs: env().GPUDESK_HISTORY_MINUTE_DAYS * 24 * 3600_000,
    team: params.team,
  });
  if (params.format === "csv") {
    return new NextResponse(teamUsageCsv(report), {
      headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="gpudesk-usage-teams.csv"` },
    });
  }
  return NextResponse.json(report);
});
