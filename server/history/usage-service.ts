import { z } from "zod";
import { queryRecord, rangeQuerySchema, resolveRange, type TimeRange } from "@/lib/domain/usage-range";
import type { UsageGroupBy, UsageReport } from "@/lib/domain/usage-types";
import type { UserPrincipal } from "@/server/access/principal";
import { env } from "@/server/core/env";
import { getUsageReport, getUsageTables, type UsageQuery } from "@/server/history/usage-report";
import { toCsv, type UsageTable } from "@/server/history/usage-csv";
import { can } from "@/server/access/permissions";

const DAY_MS = 24 * 60 * 60_000;

/** The options of GET /api/v1/usage and /usage/export beside the range. */
export const usageOptionsSchema = z.object({
  by: z.enum(["host", "model"]).default("host"),
  /** An admin may look at their own use only, as a member sees it. */
  scope: z.enum(["all", "self"]).optional(),
  table: z.enum(["people", "hosts"]).default("people"),
});

export interface UsageParams {
  range: TimeRange;
  by: UsageGroupBy;
  scope?: "all" | "self";
  table: UsageTable;
}

/** Reads `?range=…&from=…&to=…&by=…&scope=…&table=…`; throws a ZodError (400) for a bad value. */
export function parseUsageParams(source: URLSearchParams | Record<string, string | string[] | undefined>, nowMs: number): UsageParams {
  const record = queryRecord(source);
  const range = resolveRange(rangeQuerySchema.parse(record), nowMs);
  const options = usageOptionsSchema.parse(record);
  return { range, by: options.by, scope: options.scope, table: options.table };
}

/** Admins see the whole fleet; members only the GPU time they booked. */
function queryFor(viewer: UserPrincipal, params: UsageParams, nowMs: number): UsageQuery {
  const all = can.seeAllUsage(viewer.user) && params.scope !== "self";
  return {
    range: params.range,
    groupBy: params.by,
    userId: all ? undefined : viewer.user.id,
    nowMs,
    minuteRetentionMs: env().GPUDESK_HISTORY_MINUTE_DAYS * DAY_MS,
  };
}

export async function loadUsageReport(viewer: UserPrincipal, params: UsageParams, nowMs: number): Promise<UsageReport> {
  return getUsageReport(queryFor(viewer, params, nowMs));
}

/** The people or hosts table of the usage page as CSV, with a file name that says what it holds. */
export async function exportUsageCsv(viewer: UserPrincipal, params: UsageParams, nowMs: number): Promise<{ filename: string; csv: string }> {
  const query = queryFor(viewer, params, nowMs);
  const tables = await getUsageTables(query);
  const stamp = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace(/[-:]/g, "")}Z`;
  return {
    filename: `gpudesk-usage-${params.table}-${stamp(params.range.fromMs)}-${stamp(params.range.toMs)}.csv`,
    csv: toCsv(params.table, tables.people, tables.hosts),
  };
}
