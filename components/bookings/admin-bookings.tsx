"use client";

import { useId, useState } from "react";
import { useRouter } from "next/navigation";
import { unitsPhrase } from "@/lib/domain/gpu-availability";
import { apiRequest } from "@/lib/api-client";
import { formatWhen, fromLocalInput, toLocalInput } from "@/lib/format/local-time";
import { personName, personWithUsername } from "@/lib/format/person-name";
import { bookingState } from "@/lib/domain/booking-state";
import { REASON_MAX } from "@/lib/domain/booking-schema";
import type { BookingView } from "@/lib/domain/booking-types";
import { useLiveFleet } from "@/components/live/use-live-fleet";
import { useNow } from "@/components/live/use-now";
import { When } from "@/components/bookings/when";
import { useRefreshOnBookings } from "@/components/bookings/use-refresh-on-bookings";
import { Field, inputClass } from "@/components/forms/field";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button-styles";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { bodyRow, headRow, table, tableCard, td, th, wideOnly } from "@/components/ui/table-styles";

type Action = { kind: "cancel" | "shorten"; reservation: BookingView };

/**
 * Everyone's current bookings, for admins: who holds which GPUs until when,
 * and the two things an admin may do to someone else's booking, each with
 * a reason the booker sees. The list follows the live bookings.
 */
export function AdminBookings({ bookings }: { bookings: BookingView[] }) {
  const fleet = useLiveFleet();
  const now = useNow(5_000);
  const router = useRouter();
  useRefreshOnBookings(fleet.bookings, fleet.hasSnapshot);
  const serverNow = now ? now + fleet.clockOffsetMs : 0;
  const [action, setAction] = useState<Action | null>(null);
  // The page's data may lag a moment behind the clock: a booking that ended since is not offered.
  const current = bookings.filter((booking) => !serverNow || ["active", "scheduled"].includes(bookingState(booking, serverNow)));

  return (
    <section aria-labelledby="all-bookings" className="space-y-3">
      <h2 id="all-bookings" className="text-lg font-semibold tracking-tight">
        Everyone&apos;s current bookings <span className="text-sm font-normal text-slate-500 dark:text-slate-400">({current.length})</span>
      </h2>
      {current.length === 0 ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">Nobody holds or has booked a GPU right now.</p>
      ) : (
        <div className={tableCard}>
          <table className={table}>
            <thead>
              <tr className={headRow}>
                <th scope="col" className={th}>Booker</th>
                <th scope="col" className={th}>GPUs</th>
                <th scope="col" className={th}>When</th>
                <th scope="col" className={`${th} ${wideOnly}`}>Purpose</th>
                <th scope="col" className={th}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {current.map((booking) => {
                const state = serverNow ? bookingState(booking, serverNow) : booking.state;
                const gpus = `${unitsPhrase(booking.gpus)} on ${booking.host.name}`;
                return (
                  <tr key={booking.id} className={bodyRow} aria-label={`${personWithUsername(booking.bookedBy)}: ${gpus}`}>
                    {/* An admin acts on an account: the username always shows. */}
                    <td className={`${td} whitespace-nowrap font-medium`}>{personWithUsername(booking.bookedBy)}</td>
                    <td className={`${td} whitespace-nowrap`}>
                      {gpus}
                      {booking.sliceGone && (
                        <>
                          {" "}
                          <Badge tone="danger" title="Its GPU's MIG layout changed: the booker must book another slice">
                            Slice gone
                          </Badge>
                        </>
                      )}
                    </td>
                    <td className={td}>
                      <Badge tone={state === "active" ? "busy" : "neutral"}>{state === "active" ? "Active" : "Upcoming"}</Badge>{" "}
                      <When iso={booking.startsAt} nowMs={serverNow} capital /> – <When iso={booking.endsAt} nowMs={serverNow} />
                    </td>
                    <td className={`${td} ${wideOnly} max-w-xs break-words`}>{booking.purpose}</td>
                    <td className={`${td} whitespace-nowrap text-right`}>
                      <span className="inline-flex gap-2">
                        <button type="button" className={buttonClass("secondary", "sm")} onClick={() => setAction({ kind: "shorten", reservation: booking })}>
                          Shorten
                        </button>
                        <button type="button" className={buttonClass("danger", "sm")} onClick={() => setAction({ kind: "cancel", reservation: booking })}>
                          Cancel booking
                        </button>
                      </span>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {action && (
        <AdminActionDialog
          key={`${action.kind}:${action.reservation.id}`}
          action={action}
          nowMs={serverNow}
          onClose={() => setAction(null)}
          onDone={() => {
            setAction(null);
            router.refresh();
          }}
        />
      )}
    </section>
  );
}

/** Cancel or shorten one booking: the reason is required, and a refused request keeps what was typed. */
function AdminActionDialog({ action, nowMs, onClose, onDone }: { action: Action; nowMs: number; onClose: () => void; onDone: () => void }) {
  const { kind, reservation: booking } = action;
  const id = useId();
  const [reason, setReason] = useState("");
  const [until, setUntil] = useState(() => toLocalInput(Math.max(nowMs, Date.parse(booking.startsAt)) + 15 * 60_000));
  const [errors, setErrors] = useState<{ reason?: string; endsAt?: string; _?: string }>({});
  const [pending, setPending] = useState(false);
  const who = personName(booking.bookedBy);
  const gpus = `${unitsPhrase(booking.gpus)} on ${booking.host.name}`;

  async function confirm() {
    const trimmed = reason.trim();
    const endsAt = kind === "shorten" ? fromLocalInput(until) : null;
    const local: typeof errors = {};
    if (!trimmed) local.reason = `Tell ${who} why`;
    if (kind === "shorten" && !endsAt) local.endsAt = "Choose the new end date and time";
    if (Object.keys(local).length > 0) return setErrors(local);
    setPending(true);
    const result =
      kind === "cancel"
        ? await apiRequest("POST", `/api/v1/reservations/${booking.id}/cancel`, { reason: trimmed })
        : await apiRequest("PATCH", `/api/v1/reservations/${booking.id}`, { endsAt, reason: trimmed });
    setPending(false);
    if (result.ok) return onDone();
    const fields = result.error.fields ?? {};
    setErrors({ reason: fields.reason, endsAt: fields.endsAt, _: fields.reason || fields.endsAt ? undefined : result.error.message });
  }

  return (
    <ConfirmDialog
      open
      title={kind === "cancel" ? `Cancel ${who}'s booking of ${gpus}?` : `Shorten ${who}'s booking of ${gpus}?`}
      confirmLabel={kind === "cancel" ? "Cancel booking" : "Shorten"}
      dismissLabel={kind === "cancel" ? "Keep it" : "Cancel"}
      pendingLabel={kind === "cancel" ? "Cancelling…" : "Shortening…"}
      pending={pending}
      error={errors._}
      onCancel={onClose}
      onConfirm={() => void confirm()}
    >
      <p>
        {kind === "cancel"
          ? `The GPUs become free for others at once. ${who} sees your reason on their booking.`
          : `It now ends ${nowMs ? formatWhen(booking.endsAt, nowMs) : ""}. ${who} sees your reason on their booking.`}
      </p>
      {kind === "shorten" && (
        <Field label="New end" error={errors.endsAt}>
          {(control) => <input {...control} type="datetime-local" value={until} onChange={(event) => setUntil(event.target.value)} className={inputClass} />}
        </Field>
      )}
      <Field label="Reason" error={errors.reason} hint={`Shown to ${who}.`}>
        {(control) => (
          <textarea {...control} rows={2} maxLength={REASON_MAX} value={reason} onChange={(event) => setReason(event.target.value)} className={inputClass} placeholder="e.g. the host goes down for maintenance at 18:00" />
        )}
      </Field>
    </ConfirmDialog>
  );
}
