import Link from "next/link";
import { memo } from "react";
import type { LiveBooking } from "@/lib/live";
import { formatWhen } from "@/lib/local-time";
import { personHue } from "@/lib/person-colour";

interface GpuBookingProps {
  hostName: string;
  index: number;
  /** Processes run on the GPU. */
  busy: boolean;
  current: LiveBooking | null;
  next: LiveBooking | null;
  /** Server-clock now. */
  nowMs: number;
}

/**
 * Who holds the GPU by booking and until when, or that it is free; and a
 * link to book it (after the current booking, if there is one). The link
 * sits above the card's stretched link, so both can be used.
 */
export function GpuBooking({ hostName, index, busy, current, next, nowMs }: GpuBookingProps) {
  return (
    <div className="flex items-center gap-2 text-xs">
      <div className="min-w-0 flex-1">
        {current ? (
          <p data-testid="gpu-holder" className="flex min-w-0 items-center gap-1.5" title={`${current.holder.name}: ${current.purpose}`}>
            <span aria-hidden className="size-2.5 shrink-0 rounded-full bg-[oklch(0.7_0.13_var(--hue))]" style={{ "--hue": personHue(current.holder.id) } as React.CSSProperties} />
            <span className="truncate">
              <span className="font-medium">{current.holder.username}</span>
              <span className="text-slate-500 dark:text-slate-400"> until {formatWhen(current.endsAt, nowMs)}</span>
            </span>
          </p>
        ) : busy ? (
          // Running, but nobody booked it: bookable, yet not idle.
          <p data-testid="gpu-holder" className="font-medium text-slate-700 dark:text-slate-300">
            Not booked
          </p>
        ) : (
          <p data-testid="gpu-holder" className="font-semibold text-emerald-700 dark:text-emerald-400">
            Free
          </p>
        )}
        {next && (
          <p className="truncate text-slate-500 dark:text-slate-400">
            Next: {next.holder.username} {formatWhen(next.startsAt, nowMs)}
          </p>
        )}
      </div>
      <BookLink hostName={hostName} index={index} after={current?.endsAt ?? null} />
    </div>
  );
}

/** The booking link, drawn again only when its target changes: the fleet's cards re-render every second. */
const BookLink = memo(function BookLink({ hostName, index, after }: { hostName: string; index: number; after: string | null }) {
  const params = new URLSearchParams({ host: hostName, gpus: String(index) });
  if (after) params.set("start", after);
  return (
    <Link
      href={`/reserve?${params}`}
      aria-label={`Book GPU ${index} on ${hostName}`}
      className={`relative z-10 shrink-0 rounded-md px-2 py-1 font-medium focus-visible:outline-2 focus-visible:outline-sky-500 ${
        after
          ? "text-sky-700 hover:bg-slate-100 dark:text-sky-400 dark:hover:bg-slate-800"
          : "bg-emerald-600 text-white hover:bg-emerald-700 dark:bg-emerald-500 dark:text-slate-950 dark:hover:bg-emerald-400"
      }`}
    >
      {after ? "Book after" : "Book"}
    </Link>
  );
});
