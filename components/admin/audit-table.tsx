"use client";

import Link from "next/link";
import { formatWhen } from "@/lib/format/local-time";
import { type AuditEntryView } from "@/lib/domain/audit";
import { auditActionLabel, auditSentence } from "@/lib/domain/audit-sentence";
import { useNow } from "@/components/live/use-now";
import { bodyRow, headRow, table, tableCard, td, th, wideOnly } from "@/components/ui/table-styles";

/** The row as a sentence, its times in the viewer's zone (empty until the clock is known, so that server and browser agree). */
function describe(entry: AuditEntryView, nowMs: number): string {
  return nowMs ? auditSentence(entry, (iso) => formatWhen(iso, nowMs)) : "";
}

/** The log, newest first; `olderHref` is the link to the next page with the same filters. */
export function AuditTable({ entries, olderHref }: { entries: AuditEntryView[]; olderHref: string | null }) {
  const now = useNow(60_000);
  if (entries.length === 0) return <p className="text-slate-600 dark:text-slate-400">Nothing recorded that matches.</p>;
  return (
    <div className="space-y-4">
      <div className={tableCard}>
        <table className={table}>
          <thead>
            <tr className={headRow}>
              <th scope="col" className={th}>When</th>
              <th scope="col" className={th}>Who</th>
              <th scope="col" className={th}>What</th>
              <th scope="col" className={`${th} ${wideOnly}`}>Details</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id} className={bodyRow}>
                <td className={`${td} whitespace-nowrap`}>
                  <time dateTime={entry.at}>{now ? formatWhen(entry.at, now) : ""}</time>
                </td>
                <td className={td}>
                  {entry.actor ? entry.actor.username : entry.action.startsWith("signin.") ? "—" : "system"}
                  {(entry.ip || entry.via === "cli") && (
                    <span className="block font-mono text-xs text-slate-500 dark:text-slate-400">{entry.ip ?? "command line"}</span>
                  )}
                </td>
                <td className={td}>
                  {auditActionLabel(entry.action)}
                  {entry.entityType !== "policy" && <span className="block font-mono text-xs text-slate-500 dark:text-slate-400">{entry.entityId}</span>}
                  <span className="mt-1 block text-xs text-slate-600 sm:hidden dark:text-slate-400">{describe(entry, now)}</span>
                </td>
                <td className={`${td} ${wideOnly} text-slate-700 dark:text-slate-300`}>{describe(entry, now)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {olderHref && (
        <Link href={olderHref} className="text-sm text-sky-700 hover:underline dark:text-sky-400">
          Older entries
        </Link>
      )}
    </div>
  );
}
