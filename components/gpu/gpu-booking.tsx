import { purposeWithPart } from "@/lib/domain/multi-node";
import Link from "next/link";
import { memo } from "react";
import { GPU_STATE_LABELS, type GpuState } from "@/lib/domain/gpu-availability";
import { gpuStateLabel } from "@/lib/domain/attribution";
import type { SlurmHoldNow } from "@/lib/domain/slurm";
import type { LiveBooking } from "@/lib/live/live";
import { idleSentence } from "@/lib/domain/idle-release";
import { formatClock, formatWhen } from "@/lib/format/local-time";
import { PALETTE_FILL_CLASS, paletteFor, paletteStyle } from "@/lib/palette";
import { personName } from "@/lib/format/person-name";
import type { PersonRef } from "@/lib/domain/booking-types";
import { bookLinkKind, type BookLinkKind as LinkKind } from "@/components/gpu/card-props";

interface GpuBookingProps {
  hostName: string;
  index: number;
  /** The GPU's state by the one rule (lib/domain/gpu-availability.ts). */
  state: GpuState;
  /** What runs there unbooked is only the viewer's own work: booking it claims it. */
  mine: boolean;
  /** "no process visible (40 GiB held)" when it is in use with no process listed; null otherwise. */
  unseen?: string | null;
  current: LiveBooking | null;
  next: LiveBooking | null;
  /** Everyone named on the page, to tell two people of one display name apart. */
  people: PersonRef[];
  /** Slurm's own job or a reservation gpudesk did not make holds it (until its end, if it has one): the line says so. */
  slurm?: SlurmHoldNow | null;
  /** Server-clock now. */
  nowMs: number;
}

/**
 * Who holds the GPU by booking and until when, or what it is without one;
 * and a link to book it (after the current booking, if there is one). Only
 * a free GPU wears the green "Book": one running someone else's work offers
 * "Book anyway" (the form then names whose work it is), one running only the
 * viewer's own offers "Claim". The link sits above the card's stretched
 * link, so both can be used.
 */
export function GpuBooking({ hostName, index, state, mine, unseen = null, slurm = null, current, next, people, nowMs }: GpuBookingProps) {
  const slurmUntil = slurm?.until ?? null;
  // Held by Slurm: its words ("Held by Slurm (job 42 of bob)"), not "In use without a booking".
  const slurmWords = state === "unbooked_use" && slurm ? gpuStateLabel({ state, slurm }, (iso) => formatWhen(iso, nowMs)) : null;
  return (
    <div className="flex items-center gap-2 text-xs">
      <div className="min-w-0 flex-1">
        {current ? (
          <p data-testid="gpu-booker" className="flex min-w-0 items-baseline gap-1.5" title={`${personName(current.bookedBy, people)}${current.team ? ` for ${current.team}` : ""}: ${purposeWithPart(current.purpose, current.multiNode)}`}>
            <span aria-hidden className={`size-2.5 shrink-0 translate-y-px rounded-full ${PALETTE_FILL_CLASS}`} style={paletteStyle(paletteFor(people.map((person) => person.id))(current.bookedBy.id)) as React.CSSProperties} />
            {/* Wraps rather than cutting: the name and its end time both stay whole. */}
            <span className="min-w-0 break-words">
              <span className="font-medium">{personName(current.bookedBy, people)}</span>
              {current.team ? <span data-testid="gpu-team" className="text-slate-600 dark:text-slate-400"> for {current.team}</span> : null}
              <span className="text-slate-500 dark:text-slate-400"> until {formatWhen(current.endsAt, nowMs)}</span>
            </span>
          </p>
        ) : null}
        {current?.idleWarning ? (
          <p data-testid="gpu-idle" className="break-words font-medium text-amber-800 dark:text-amber-300">
            {idleSentence({ phase: "warning", idleSince: current.idleWarning.idleSince, releaseAt: current.idleWarning.releaseAt, idleMinutes: 0, keepsLeft: 0, exempt: false, reportOnly: false }, (iso) => formatClock(Date.parse(iso)))}
          </p>
        ) : null}
        {current ? null : state === "free" ? (
          <p data-testid="gpu-booker" className="font-semibold text-emerald-700 dark:text-emerald-400">
            Free
          </p>
        ) : (
          <p data-testid="gpu-booker" className={`font-medium ${state === "unbooked_use" ? "text-amber-800 dark:text-amber-300" : "text-slate-700 dark:text-slate-300"}`}>
            {slurmWords ?? (state === "unbooked_use" ? (unseen ? `In use — ${unseen}` : mine ? "Your job, not booked" : "In use without a booking") : GPU_STATE_LABELS[state])}
          </p>
        )}
        {next && (
          <p className="break-words text-slate-500 dark:text-slate-400">
            Next: {personName(next.bookedBy, people)} {formatWhen(next.startsAt, nowMs)}
          </p>
        )}
      </div>
      {/* Slurm's job or reservation holds it until its end: booking it before then is Slurm's to refuse, so the link books after. */}
      <BookLink hostName={hostName} index={index} after={current?.endsAt ?? slurmUntil ?? null} kind={!current && slurmUntil ? "after" : bookLinkKind(state, current !== null, mine)} />
    </div>
  );
}


const LINK_TEXT: Record<LinkKind, string> = { free: "Book", after: "Book after", claim: "Claim", busy: "Book anyway", other: "Book" };
const LINK_HINT: Record<LinkKind, string> = {
  free: "",
  after: " after the current booking",
  claim: ", where your own job runs unbooked",
  busy: ", where someone else's work runs without a booking",
  other: "",
};
const LINK_LOOK: Record<LinkKind, string> = {
  free: "bg-emerald-600 text-white hover:bg-emerald-700 dark:bg-emerald-500 dark:text-slate-950 dark:hover:bg-emerald-400",
  after: "text-sky-700 hover:bg-slate-100 dark:text-sky-400 dark:hover:bg-slate-800",
  claim: "border border-sky-600 text-sky-800 hover:bg-sky-50 dark:border-sky-400 dark:text-sky-300 dark:hover:bg-sky-950",
  busy: "border border-amber-500 text-amber-900 hover:bg-amber-50 dark:border-amber-500 dark:text-amber-200 dark:hover:bg-amber-950",
  other: "border border-slate-300 text-slate-700 hover:bg-slate-100 dark:border-slate-600 dark:text-slate-300 dark:hover:bg-slate-800",
};

/** The booking link, drawn again only when its target or kind changes: the fleet's cards re-render every second. */
export const BookLink = memo(function BookLink({ hostName, index, after, kind }: { hostName: string; index: number; after: string | null; kind: LinkKind }) {
  const params = new URLSearchParams({ host: hostName, gpus: String(index) });
  if (after) params.set("start", after);
  return (
    <Link
      href={`/reserve?${params}`}
      aria-label={`Book GPU ${index} on ${hostName}${LINK_HINT[kind]}`}
      data-kind={kind}
      className={`relative z-10 shrink-0 rounded-md px-2 py-1 font-medium focus-visible:outline-2 focus-visible:outline-sky-500 ${LINK_LOOK[kind]}`}
    >
      {LINK_TEXT[kind]}
    </Link>
  );
});
