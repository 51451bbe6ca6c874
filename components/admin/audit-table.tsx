"use client";

import Link from "next/link";
import { formatWhen } from "@/lib/local-time";
import { AUDIT_ACTION_LABELS, type AuditEntryView, type KnownAuditAction } from "@/lib/audit";
import { useNow } from "@/components/live/use-now";
import { bodyRow, headRow, table, tableCard, td, th, wideOnly } from "@/components/ui/table-styles";

type Json = Record<string, unknown> | null;

function asObject(value: unknown): Json {
  return value && typeof value === "object" ? (value as Record<string, unknown>) : null;
}

/** Before and after, in words: the fields that changed, times in the viewer's zone. */
function describe(entry: AuditEntryView, nowMs: number): string {
  const before = asObject(entry.before);
  const after = asObject(entry.after);
  const show = (key: string, value: unknown) =>
    typeof value === "string" && /At$/.test(key) && nowMs ? formatWhen(value, nowMs) : Array.isArray(value) ? value.map((item) => asObject(item)?.index ?? item).join(", ") : String(value);
  if (!before && after && entry.entityType === "reservation") {
    // Entries since issue 37 name each unit ("GPU 0:2 (1g.10gb)"); older ones list GPU indices.
    const units = Array.isArray(after.gpus) ? after.gpus.map((item) => asObject(item)?.unit).filter((unit) => typeof unit === "string") : [];
    const gpus = units.length > 0 ? units.join(", ") : `GPU ${show("gpus", after.gpus)}`;
    return `${after.host ?? ""} ${gpus}, ${show("startsAt", after.startsAt)} – ${show("endsAt", after.endsAt)}: ${after.purpose ?? ""}`;
  }
  const parts: string[] = [];
  if (!before && after) {
    for (const [key, value] of Object.entries(after)) parts.push(`${key}: ${show(key, value)}`);
    return parts.join("; ");
  }
  for (const key of Object.keys({ ...before, ...after })) {
    if (key === "reason") continue;
    const from = before?.[key];
    const to = after?.[key];
    if (JSON.stringify(from) !== JSON.stringify(to)) parts.push(`${key}: ${show(key, from)} → ${show(key, to)}`);
  }
  if (typeof after?.reason === "string") parts.push(`reason: ${after.reason}`);
  return parts.join("; ") || "no change";
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
                  {AUDIT_ACTION_LABELS[entry.action as KnownAuditAction] ?? entry.action}
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
