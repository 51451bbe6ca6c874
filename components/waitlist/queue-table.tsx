"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { apiRequest } from "@/lib/api-client";
import { formatDurationMinutes } from "@/lib/domain/booking-window";
import { type WaitlistView, waitedPhrase } from "@/lib/domain/waitlist-schema";
import { WaitReasonText } from "@/components/waitlist/wait-reason";
import { getLiveSocket } from "@/components/live/live-socket";
import { useLiveFleet } from "@/components/live/use-live-fleet";
import { useNow } from "@/components/live/use-now";
import { personNames } from "@/lib/format/person-name";
import { useCurrentUser } from "@/components/auth/current-user";
import { When } from "@/components/bookings/when";
import { useRefreshOnBookings } from "@/components/bookings/use-refresh-on-bookings";
import { buttonClass } from "@/components/ui/button-styles";
import { bodyRow, headRow, table, tableCard, td, th, wideOnly } from "@/components/ui/table-styles";

/** Estimates move with the clock even when no booking changes: read the queue again this often. */
const REFRESH_MS = 30_000;

/**
 * The waitlist in order of service, with each request's estimated start.
 * It reloads whenever the live bookings change (a booking ended, a request
 * was granted) and every half minute; the viewer's own requests stand out
 * and can be withdrawn.
 */
export function QueueTable({ entries }: { entries: WaitlistView[] }) {
  const fleet = useLiveFleet();
  const now = useNow(10_000);
  const router = useRouter();
  const me = useCurrentUser();
  const [error, setError] = useState<string | null>(null);
  const [leaving, setLeaving] = useState<string | null>(null);
  useRefreshOnBookings(fleet.bookings, fleet.hasSnapshot);
  useEffect(() => {
    const timer = setInterval(() => router.refresh(), REFRESH_MS);
    // The viewer's own request granted: its row goes at once, whatever the booking feed said before.
    const socket = getLiveSocket();
    const onGranted = () => router.refresh();
    socket.on("waitlist:granted", onGranted);
    return () => {
      clearInterval(timer);
      socket.off("waitlist:granted", onGranted);
    };
  }, [router]);
  const serverNow = now ? now + fleet.clockOffsetMs : 0;
  const names = personNames(entries.map((entry) => entry.bookedBy));

  async function leave(id: string) {
    setLeaving(id);
    const result = await apiRequest<WaitlistView>("DELETE", `/api/v1/waitlist/${encodeURIComponent(id)}`);
    setLeaving(null);
    if (!result.ok) setError(result.error.message);
    router.refresh();
  }

  /** When the request may start, and why not now (`tested`: the one copy tests find by its test id). */
  const estimate = (entry: (typeof entries)[number], tested: boolean) => (
    <>
      {entry.waitingBecause && (
        <div data-testid={tested && entry.waitingBecause.kind === "unbooked_use" ? "waits-for-unbooked" : undefined}>
          <WaitReasonText reason={entry.waitingBecause} tested={tested} />
        </div>
      )}
      {entry.estimatedStartAt ? (
        Date.parse(entry.estimatedStartAt) <= serverNow && !entry.waitingBecause ? (
          <span className="font-medium text-emerald-700 dark:text-emerald-300">any moment</span>
        ) : (
          <span>
            ~<When iso={entry.estimatedStartAt} nowMs={serverNow} />
          </span>
        )
      ) : entry.waitingBecause ? null : (
        <span className="text-slate-500 dark:text-slate-400" title="Nothing the current bookings free up fits within a week">
          not within a week
        </span>
      )}
    </>
  );

  const leaveButton = (entry: (typeof entries)[number], mine: boolean) =>
    (mine || me.can.removeOthersWaitlistEntries) && (
      <button type="button" onClick={() => void leave(entry.id)} disabled={leaving === entry.id} className={buttonClass("secondary", "sm")}>
        {mine ? "Leave the queue" : "Remove"}
      </button>
    );

  if (entries.length === 0) {
    return (
      <div className="rounded-xl border border-dashed border-slate-300 p-8 text-center dark:border-slate-700">
        <p className="text-slate-600 dark:text-slate-400">Nobody is waiting. When no GPUs are free, “Queue me” on the booking form puts you here.</p>
      </div>
    );
  }

  return (
    <div className="space-y-3">
      {error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
      <div className={tableCard}>
        <table className={table} aria-label="Waiting requests">
          <thead>
            <tr className={headRow}>
              <th scope="col" className={th}>
                #
              </th>
              <th scope="col" className={th}>
                Who and what
              </th>
              <th scope="col" className={`${th} ${wideOnly}`}>
                Waiting since
              </th>
              <th scope="col" className={`${th} ${wideOnly}`}>
                Estimated start
              </th>
              <th scope="col" className={`${th} ${wideOnly}`}>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => {
              const mine = entry.bookedBy.id === me.id;
              return (
                <tr key={entry.id} className={`${bodyRow} ${mine ? "bg-sky-50 dark:bg-sky-950/40" : ""}`} data-testid="queue-row" data-mine={mine}>
                  <td className={`${td} text-lg font-semibold tabular-nums`}>{entry.position}</td>
                  <td className={td}>
                    <p className="font-medium">
                      {names.get(entry.bookedBy.username) ?? entry.bookedBy.username}
                      {entry.team && <span className="ml-2 text-sm font-normal text-slate-500 dark:text-slate-400">for {entry.team}</span>}
                      {mine && <span className="ml-2 rounded bg-sky-600 px-1.5 py-0.5 text-xs font-semibold text-white dark:bg-sky-500 dark:text-slate-950">you</span>}
                    </p>
                    <p className="text-slate-600 dark:text-slate-400">
                      {waitedPhrase(entry)} for {formatDurationMinutes(entry.durationMinutes)} · {entry.purpose}
                    </p>
                    {entry.orderReason && (
                      <p className="text-xs text-slate-500 dark:text-slate-400" data-testid="queue-order-reason">
                        {entry.orderReason}
                      </p>
                    )}
                    {/* On a phone the estimate and the button sit here: columns of their own left the reason a word wide, the button off screen. */}
                    <div className="mt-2 space-y-2 sm:hidden">
                      <div className="text-sm">{estimate(entry, false)}</div>
                      {leaveButton(entry, mine)}
                    </div>
                  </td>
                  <td className={`${td} ${wideOnly}`}>
                    <When iso={entry.createdAt} nowMs={serverNow} />
                  </td>
                  <td className={`${td} ${wideOnly}`}>{estimate(entry, true)}</td>
                  <td className={`${td} ${wideOnly} text-right`}>{leaveButton(entry, mine)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <p className="text-xs text-slate-500 dark:text-slate-400">
        Estimates assume current bookings run to their end; an early release makes them sooner. At most 2 waiting requests per person; a request
        that has waited a day is dropped. Granted requests appear under <Link href="/reservations" className="underline">My bookings</Link>.
      </p>
    </div>
  );
}
