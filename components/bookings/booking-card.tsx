"use client";

import Link from "next/link";
import { useId, useState } from "react";
import { apiRequest } from "@/lib/api-client";
import type { LiveBooking } from "@/lib/live/live";
import { formatWhen, fromLocalInput, toLocalInput } from "@/lib/format/local-time";
import { unitName, unitsPhrase } from "@/lib/domain/gpu-availability";
import { personName } from "@/lib/format/person-name";
import { STATE_LABELS, type BookingState } from "@/lib/domain/booking-state";
import type { BookingView } from "@/lib/domain/booking-types";
import { ConflictNotice, conflictOf } from "@/components/bookings/conflict-notice";
import { LaunchSettingsPanel } from "@/components/bookings/launch-settings-panel";
import { NodeLaunches } from "@/components/bookings/across-nodes";
import { FailedNodes } from "@/components/bookings/failed-nodes";
import { bookedPhrase } from "@/lib/domain/multi-node";
import { bookingAnchor } from "@/lib/domain/booking-link";
import { When } from "@/components/bookings/when";
import { IdleStatus } from "@/components/idle-release/idle-status";
import { FormAlert } from "@/components/forms/field";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button-styles";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

const TONE: Record<BookingState, "free" | "busy" | "neutral" | "offline" | "danger"> = {
  active: "busy",
  scheduled: "neutral",
  expired: "offline",
  released: "offline",
  cancelled: "danger",
};

interface BookingCardProps {
  booking: BookingView;
  state: BookingState;
  nowMs: number;
  /** Other people's live bookings: how far this one can be extended. */
  bookings: LiveBooking[];
  onChanged: () => void;
  /** Show the launch settings unfolded (the first active booking: what the person most likely came for). */
  expanded?: boolean;
  /** A booking across nodes: every part's view in rank order (the card shows the booking once, with each node's lines). */
  nodes?: BookingView[];
}

/** The first other booking of these GPUs after this one ends: the limit of an extension. */
function nextBookingAfter(thisBooking: BookingView, bookings: LiveBooking[]): LiveBooking | null {
  const uuids = new Set(thisBooking.gpus.map((gpu) => gpu.uuid));
  const end = Date.parse(thisBooking.endsAt);
  let next: LiveBooking | null = null;
  for (const booking of bookings) {
    if (booking.reservationId === thisBooking.id || !booking.gpus.some((gpu) => uuids.has(gpu.uuid))) continue;
    const start = Date.parse(booking.startsAt);
    if (start >= end && (!next || start < Date.parse(next.startsAt))) next = booking;
  }
  return next;
}

export function BookingCard({ booking, state, nowMs, bookings, onChanged, expanded = false, nodes }: BookingCardProps) {
  const id = useId();
  const [confirming, setConfirming] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [conflict, setConflict] = useState<ReturnType<typeof conflictOf>>(null);
  const [until, setUntil] = useState("");
  const current = state === "active" || state === "scheduled";
  // A booking across nodes is one card ("2 × 4 H100 on node-a and node-b"): its buttons act on every part.
  const title = nodes && nodes.length > 1 ? bookedPhrase(booking) : `${booking.multiNode ? `${booking.multiNode.partLabel}: ` : ""}${unitsPhrase(booking.gpus)} on ${booking.host.name}`;
  const next = current ? nextBookingAfter(booking, bookings) : null;
  const endMs = Date.parse(booking.endsAt);
  const roomMs = next ? Date.parse(next.startsAt) - endMs : Number.POSITIVE_INFINITY;

  async function send(method: "PATCH" | "POST", url: string, body?: unknown): Promise<boolean> {
    setPending(true);
    setError(null);
    setConflict(null);
    const result = await apiRequest<BookingView>(method, url, body);
    setPending(false);
    if (result.ok) {
      onChanged();
      return true;
    }
    const found = conflictOf(result.error.body);
    if (found) setConflict(found);
    else setError(Object.values(result.error.fields ?? {})[0] ?? result.error.message);
    return false;
  }

  const extend = (minutes: number) => send("PATCH", `/api/v1/reservations/${booking.id}`, { addMinutes: minutes });
  const extendUntil = () => {
    const endsAt = fromLocalInput(until);
    if (!endsAt) return setError("Choose the new end date and time.");
    return send("PATCH", `/api/v1/reservations/${booking.id}`, { endsAt });
  };

  return (
    <article
      id={bookingAnchor(booking.multiNode?.id ?? booking.id)}
      aria-labelledby={`${id}-title`}
      className="scroll-mt-24 space-y-3 rounded-xl border border-slate-200 bg-white p-4 target:border-sky-500 target:ring-2 target:ring-sky-500/40 sm:p-5 dark:border-slate-800 dark:bg-slate-900"
    >
      <header className="flex flex-wrap items-start gap-x-3 gap-y-2">
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-2">
            <h3 id={`${id}-title`} className="text-base font-semibold">
              {title}
            </h3>
            <Badge tone={TONE[state]}>{STATE_LABELS[state]}</Badge>
          </div>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
            <When iso={booking.startsAt} nowMs={nowMs} capital /> – <When iso={booking.endsAt} nowMs={nowMs} /> · {booking.purpose}
          </p>
        </div>
        {current && (
          <button type="button" onClick={() => setConfirming(true)} className={buttonClass("secondary", "sm")}>
            {state === "active" ? "Release now" : "Withdraw"}
          </button>
        )}
      </header>

      <IdleStatus bookingId={booking.id} idle={booking.idle} onKept={onChanged} />

      {current && nodes && nodes.length > 1 && <FailedNodes nodes={nodes} onMoved={onChanged} />}

      {current && booking.sliceGone && (
        <div role="alert" data-testid="slice-gone" className="flex flex-wrap items-center gap-x-3 gap-y-2 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-950 dark:border-red-800 dark:bg-red-950 dark:text-red-100">
          <p className="min-w-0 flex-1">
            <strong>{booking.gpus.some((gpu) => gpu.gone && !gpu.mig) ? "GPU split." : "Slice gone."}</strong>{" "}
            {booking.gpus
              .filter((gpu) => gpu.gone)
              .map((gpu) => unitName(gpu))
              .join(", ")}{" "}
            is no longer a unit of {booking.host.name}: its GPU&apos;s MIG layout changed. This booking cannot be used as it is; book {booking.gpus.some((gpu) => gpu.gone && !gpu.mig) ? "a slice or another GPU" : "another slice"}.
          </p>
          <Link
            href={`/reserve?${new URLSearchParams({ host: booking.host.name, start: booking.startsAt, end: booking.endsAt, purpose: booking.purpose })}`}
            className={buttonClass("secondary", "sm")}
          >
            Rebook
          </Link>
        </div>
      )}

      {booking.changes
        .filter((change) => change.actor && change.actor.id !== booking.bookedBy.id)
        .map((change) => (
          <p key={change.at} className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-100">
            {change.action === "reservation.cancel" ? "Cancelled" : change.action === "reservation.shorten" ? "Shortened" : "Changed"} by{" "}
            {change.actor ? personName(change.actor) : ""} <When iso={change.at} nowMs={nowMs} />
            {change.reason ? `: ${change.reason}` : "."}
          </p>
        ))}

      {current && (
        <div role="group" aria-label="Extend" className="flex flex-wrap items-center gap-2">
          <span className="text-sm text-slate-600 dark:text-slate-400">Extend</span>
          {[60, 240].map((minutes) => (
            <button key={minutes} type="button" disabled={pending || roomMs < minutes * 60_000} onClick={() => extend(minutes)} className={buttonClass("secondary", "sm")}>
              +{minutes / 60} h
            </button>
          ))}
          <span className="text-sm text-slate-600 dark:text-slate-400">or end at</span>
          <span className="inline-flex items-center gap-2">
            <label htmlFor={`${id}-until`} className="sr-only">
              New end time
            </label>
            <input
              id={`${id}-until`}
              type="datetime-local"
              value={until || (nowMs ? toLocalInput(endMs) : "")}
              onChange={(event) => setUntil(event.target.value)}
              className="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900"
            />
            <button type="button" disabled={pending} onClick={extendUntil} className={buttonClass("secondary", "sm")}>
              Set
            </button>
          </span>
          {next && nowMs > 0 && (
            <p className="basis-full text-xs text-slate-500 dark:text-slate-400">
              {roomMs <= 0
                ? `Cannot be extended: ${next.bookedBy.id === booking.bookedBy.id ? "your next booking" : `${personName(next.bookedBy)}'s booking`} follows right after.`
                : `Free until ${formatWhen(next.startsAt, nowMs)}, then ${next.bookedBy.id === booking.bookedBy.id ? "your next booking" : `${personName(next.bookedBy)}'s booking`} starts.`}
            </p>
          )}
        </div>
      )}
      {conflict && <ConflictNotice conflicts={conflict.conflicts} suggestion={conflict.suggestion} requestedStartMs={endMs} nowMs={nowMs} />}
      {error && <FormAlert>{error}</FormAlert>}

      {booking.state !== "cancelled" && (
        <details open={expanded} className="group">
          <summary className="cursor-pointer text-sm font-medium text-sky-700 hover:underline dark:text-sky-400">Launch settings</summary>
          <div className="mt-3">{nodes && nodes.length > 1 ? <NodeLaunches parts={nodes} /> : <LaunchSettingsPanel launch={booking.launch} slurm={booking.slurm} />}</div>
        </details>
      )}

      <ConfirmDialog
        open={confirming}
        title={`${state === "active" ? "Release" : "Withdraw"} ${title}?`}
        confirmLabel={state === "active" ? "Release" : "Withdraw"}
        pendingLabel="Releasing…"
        pending={pending}
        error={error}
        onCancel={() => setConfirming(false)}
        onConfirm={async () => {
          if (await send("POST", `/api/v1/reservations/${booking.id}/release`)) setConfirming(false);
        }}
      >
        <p>{state === "active" ? "The GPUs become free for others at once. Stop your jobs on them first." : "The GPUs stay free for that time."}</p>
        {booking.multiNode && (
          <p>
            This ends the whole booking: all {booking.multiNode.nodeCount} nodes ({booking.multiNode.parts.map((part) => part.host.name).join(", ")}).
          </p>
        )}
      </ConfirmDialog>
    </article>
  );
}
