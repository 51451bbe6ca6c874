import { z } from "zod";
import { text } from "@/lib/domain/plain-text";
import { parseSpan, queryRecord, rangeQuerySchema, resolveRange, type TimeRange } from "@/lib/domain/usage-range";
import type { TeamUsageReport } from "@/lib/domain/team-usage";
import { csvLines } from "@/server/history/usage-csv";

/** `?team=vision&since=30d` (or the usage page's `range`/`from`/`to`), `format=csv` for the spreadsheet. */
export const teamUsageOptionsSchema = z.object({
  team: text().trim().min(1).max(64).optional(),
  since: text()
    .max(8)
    .refine((text) => parseSpan(text) !== null, "A span such as 90m, 24h, 30d or 2w")
    .optional(),
  format: z.enum(["json", "csv"]).default("json"),
});

export const teamUsageQuerySchema = rangeQuerySchema.and(teamUsageOptionsSchema);

export function parseTeamUsageParams(source: URLSearchParams, nowMs: number): { range: TimeRange; team?: string; format: "json" | "csv" } {
  const record = queryRecord(source);
  const options = teamUsageOptionsSchema.parse(record);
  const range: TimeRange = options.since
    ? { choice: "custom", fromMs: nowMs - (parseSpan(options.since) as number), toMs: nowMs }
    : resolveRange(rangeQuerySchema.parse(record), nowMs);
  return { range, team: options.team, format: options.format };
}

/** One row per person per team, then one per person's use without a booking nobody booked for a team: what a spreadsheet wants. */
export function teamUsageCsv(report: TeamUsageReport): string {
  const rows: (string | number | null)[][] = [];
  for (const team of report.teams) {
    rows.push([team.name, "", "(team)", team.bookedGpuHours, team.usedWithoutBookingGpuHours]);
    for (const member of team.members) rows.push([team.name, member.username, member.name, member.bookedGpuHours, member.usedWithoutBookingGpuHours]);
  }
  return csvLines(["team", "username", "person", "booked_gpu_hours", "used_without_booking_gpu_hours"], rows);
}
