import { ZodError } from "zod";
import { requirePageUser } from "@/server/auth/session";
import { env } from "@/server/core/env";
import { parseUsageParams } from "@/server/history/usage-service";
import { getTeamUsage } from "@/server/teams/team-usage";
import { teamsLedBy } from "@/server/teams/team-service";
import { TeamUsageTables } from "@/components/teams/team-usage-tables";
import { can } from "@/server/access/permissions";

type SearchParams = Record<string, string | string[] | undefined>;

/**
 * Usage per team and person for the usage pages' range: every team on
 * /admin/usage, the viewer's own teams on /usage when they lead one
 * (nothing for anyone else).
 */
export async function TeamUsageSection({ searchParams, basePath }: { searchParams: SearchParams; basePath: string }) {
  const viewer = await requirePageUser(basePath);
  if (!can.seeEveryTeamsUsage(viewer.user) && (await teamsLedBy(viewer.user.id)).length === 0) return null;
  const now = Date.now();
  let range;
  try {
    range = parseUsageParams(searchParams, now).range;
  } catch (error) {
    if (!(error instanceof ZodError)) throw error;
    range = parseUsageParams({}, now).range;
  }
  const report = await getTeamUsage(viewer.user, {
    fromMs: range.fromMs,
    toMs: range.toMs,
    nowMs: now,
    minuteRetentionMs: env().GPUDESK_HISTORY_MINUTE_DAYS * 24 * 3600_000,
  });
  const csv = `/api/v1/usage/teams?format=csv&from=${new Date(range.fromMs).toISOString()}&to=${new Date(range.toMs).toISOString()}`;
  return <TeamUsageTables report={report} csvHref={csv} lead={!can.seeEveryTeamsUsage(viewer.user)} />;
}
