"use client";

import Link from "next/link";
import { ALERT_KIND_LABELS, type AlertKind, type AlertView } from "@/lib/domain/alerts";
import { formatMemory } from "@/lib/format/format";
import { personName } from "@/lib/format/person-name";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button-styles";
import { TimeAgo } from "@/components/ui/time-ago";

const KIND_TONE: Record<AlertKind, "danger" | "warn" | "neutral"> = {
  conflict: "danger",
  unbooked_use: "warn",
  idle_booking: "warn",
  memory_pressure: "danger",
  gpu_health: "danger",
  gpu_lost: "danger",
  host_offline: "warn",
};

interface EvidenceProcess {
  pid: number;
  login: string | null;
  person: { username: string; name?: string | null } | null;
  via: string;
  intruder: boolean;
  command: string | null;
  usedMemoryMiB: number | null;
}

function evidenceProcesses(evidence: Record<string, unknown>): EvidenceProcess[] {
  const list = evidence.processes;
  return Array.isArray(list) ? (list as EvidenceProcess[]).filter((entry) => typeof entry?.pid === "number") : [];
}

/** The numbers a rule saw, in words: "utilization 0 %", "97.5 % of memory". */
function facts(evidence: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (typeof evidence.utilizationPct === "number") out.push(`utilization ${Math.round(evidence.utilizationPct)} %`);
  if (typeof evidence.usedPct === "number") out.push(`${evidence.usedPct} % of memory`);
  if (typeof evidence.problem === "string") out.push(evidence.problem);
  if (evidence.closeReason === "not observed") out.push("closed: its host stopped reporting");
  return out;
}

interface AlertItemProps {
  alert: AlertView;
  /** The viewer may acknowledge it (canAcknowledgeAlert in lib/domain/alerts.ts, with the viewer's `can.acknowledgeEveryAlert`). */
  canAcknowledge: boolean;
  highlighted: boolean;
  acknowledging: boolean;
  onAcknowledge: (id: string) => void;
}

/** One alert: what, where, who (with the evidence next to each process), since when, and its acknowledgement. */
export function AlertItem({ alert, canAcknowledge, highlighted, acknowledging, onAcknowledge }: AlertItemProps) {
  const open = alert.closedAt === null;
  const processes = evidenceProcesses(alert.evidence);
  const details = facts(alert.evidence);
  const where = alert.host ? `${alert.host.name}${alert.gpu ? ` · ${alert.gpu.unit ?? `GPU ${alert.gpu.index ?? "?"}`}` : ""}` : null;

  return (
    <article
      id={`alert-${alert.id}`}
      aria-label={`${ALERT_KIND_LABELS[alert.kind]}${where ? ` on ${where}` : ""}`}
      data-kind={alert.kind}
      data-open={open}
      className={`scroll-mt-24 rounded-xl border bg-white p-4 dark:bg-slate-900 ${
        highlighted ? "border-sky-500 ring-2 ring-sky-500/40" : open ? "border-slate-200 dark:border-slate-800" : "border-slate-200 opacity-80 dark:border-slate-800"
      }`}
    >
      <div className="flex flex-wrap items-start gap-x-3 gap-y-2">
        <div className="flex min-w-0 flex-1 flex-wrap items-center gap-2">
          <Badge tone={open ? KIND_TONE[alert.kind] : "neutral"}>{ALERT_KIND_LABELS[alert.kind]}</Badge>
          {!open && <Badge tone="free">Closed</Badge>}
          {open && alert.acknowledgedAt && <Badge>Acknowledged</Badge>}
          {where && (
            <span className="text-sm font-medium">
              {alert.gpu ? (
                <Link href={`/gpus/${encodeURIComponent(alert.gpu.uuid)}`} className="hover:underline">
                  {where}
                </Link>
              ) : (
                where
              )}
            </span>
          )}
        </div>
        {open && !alert.acknowledgedAt && canAcknowledge && (
          <button type="button" disabled={acknowledging} onClick={() => onAcknowledge(alert.id)} className={buttonClass("secondary", "sm")}>
            {acknowledging ? "Acknowledging…" : "Acknowledge"}
          </button>
        )}
      </div>

      <p className="mt-2 text-sm">{alert.message}</p>

      {alert.bookings && alert.bookings.length > 0 && (
        <ul aria-label="Bookings" className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-sm">
          {alert.bookings.map((booking) => (
            <li key={booking.id} className="min-w-0">
              <Link href={booking.path} className="font-medium text-sky-700 underline hover:no-underline dark:text-sky-300">
                Booking: {booking.name}
              </Link>
            </li>
          ))}
        </ul>
      )}

      {processes.length > 0 && (
        <ul aria-label="Processes" className="mt-3 space-y-1 text-xs">
          {processes.slice(0, 6).map((process) => (
            <li key={process.pid} className="flex min-w-0 flex-wrap items-baseline gap-x-2">
              {process.intruder && <span className="font-semibold text-red-700 dark:text-red-300">Not the booker</span>}
              <span className="font-medium">{process.person ? personName({ username: process.person.username, name: process.person.name ?? null }, alert.people) : (process.login ?? "unknown")}</span>
              <span className="text-slate-500 dark:text-slate-400">{process.via}</span>
              <span className="font-mono text-slate-500 dark:text-slate-400">PID {process.pid}</span>
              {process.usedMemoryMiB !== null && <span className="text-slate-500 dark:text-slate-400">{formatMemory(process.usedMemoryMiB)}</span>}
              {process.command && (
                <span className="min-w-0 basis-full truncate font-mono text-slate-500 sm:basis-auto dark:text-slate-400" title={process.command}>
                  {process.command}
                </span>
              )}
            </li>
          ))}
          {processes.length > 6 && <li className="text-slate-500 dark:text-slate-400">+{processes.length - 6} more processes</li>}
        </ul>
      )}

      <dl className="mt-3 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600 dark:text-slate-400">
        <div className="flex gap-1">
          <dt>Opened</dt>
          <dd>
            <TimeAgo iso={alert.openedAt} />
          </dd>
        </div>
        {alert.closedAt && (
          <div className="flex gap-1">
            <dt>Closed</dt>
            <dd>
              <TimeAgo iso={alert.closedAt} />
            </dd>
          </div>
        )}
        {alert.people.length > 0 && (
          <div className="flex gap-1">
            <dt>People</dt>
            <dd>{alert.people.map((person) => personName(person, alert.people)).join(", ")}</dd>
          </div>
        )}
        {alert.acknowledgedBy && (
          <div className="flex gap-1">
            <dt>Acknowledged by</dt>
            <dd>{personName(alert.acknowledgedBy)}</dd>
          </div>
        )}
        {details.length > 0 && (
          <div className="flex gap-1">
            <dt className="sr-only">Seen</dt>
            <dd>{details.join(" · ")}</dd>
          </div>
        )}
      </dl>
    </article>
  );
}
