import type { TeamUsageReport } from "@/lib/domain/team-usage";
import { formatGpuHours } from "@/lib/format/usage-format";
import * as t from "@/components/ui/table-styles";

/**
 * Per team and per person: GPU-hours booked (the figure the quotas count)
 * and use without a booking, by the person the live view named; then
 * everyone's use without a booking, one row per person, not one lump.
 */
export function TeamUsageTables({ report, csvHref, lead }: { report: TeamUsageReport; csvHref: string; lead: boolean }) {
  return (
    <div className="space-y-6">
      <section aria-labelledby="team-usage-heading" className="space-y-3">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 id="team-usage-heading" className="text-base font-semibold">
            {lead ? "Your team" : "Teams"}
          </h2>
          <a className="text-sm text-sky-700 underline dark:text-sky-300" href={csvHref}>
            Download CSV
          </a>
        </div>
        {report.teams.length === 0 ? (
          <p className="text-sm text-slate-500 dark:text-slate-400">No teams yet (Admin › Teams).</p>
        ) : (
          <div className={t.tableCard}>
            <table className={t.table} aria-label="Usage per team and person">
              <thead>
                <tr className={t.headRow}>
                  <th scope="col" className={t.th}>Team / person</th>
                  <th scope="col" className={`${t.th} text-right`}>Booked GPU-h</th>
                  <th scope="col" className={`${t.th} text-right`}>Use without a booking, GPU-h</th>
                </tr>
              </thead>
              <tbody>
                {report.teams.flatMap((team) => [
                  <tr key={team.teamId} className={`${t.bodyRow} font-semibold`}>
                    <td className={t.td}>{team.name}</td>
                    <td className={`${t.td} text-right tabular-nums`}>{formatGpuHours(team.bookedGpuHours)}</td>
                    <td className={`${t.td} text-right tabular-nums`}>{formatGpuHours(team.usedWithoutBookingGpuHours)}</td>
                  </tr>,
                  ...team.members.map((member) => (
                    <tr key={`${team.teamId}-${member.userId}`} className={t.bodyRow}>
                      <td className={`${t.td} pl-8`}>
                        {member.name || member.username}
                        {member.lead ? <span className="ml-2 text-xs text-slate-500">lead</span> : null}
                      </td>
                      <td className={`${t.td} text-right tabular-nums`}>{formatGpuHours(member.bookedGpuHours)}</td>
                      <td className={`${t.td} text-right tabular-nums`}>{formatGpuHours(member.usedWithoutBookingGpuHours)}</td>
                    </tr>
                  )),
                ])}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section aria-labelledby="unbooked-heading" className="space-y-3">
        <h2 id="unbooked-heading" className="text-base font-semibold">
          Use without a booking, by who ran it
        </h2>
        {report.unbooked.length === 0 ? (
          <p className="text-sm text-slate-500 dark:text-slate-400">No GPU time was used without a booking in this range.</p>
        ) : (
          <div className={t.tableCard}>
            <table className={t.table} aria-label="Use without a booking by person">
              <thead>
                <tr className={t.headRow}>
                  <th scope="col" className={t.th}>Person (login, container or Slurm job owner)</th>
                  <th scope="col" className={`${t.th} text-right`}>GPU-h</th>
                </tr>
              </thead>
              <tbody>
                {report.unbooked.map((row) => (
                  <tr key={row.userId ?? row.login ?? "nobody"} className={t.bodyRow}>
                    <td className={t.td}>{row.label}</td>
                    <td className={`${t.td} text-right tabular-nums`}>{formatGpuHours(row.usedWithoutBookingGpuHours)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
