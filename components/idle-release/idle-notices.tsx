"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { apiRequest } from "@/lib/api-client";
import { holdingSentence, idleSentence, keepsSentence, keptSentence, type IdleNotice } from "@/lib/domain/idle-release";
import { formatClock } from "@/lib/format/local-time";
import { getLiveSocket } from "@/components/live/live-socket";
import type { BookingView } from "@/lib/domain/booking-types";
import { KeepButton } from "@/components/idle-release/idle-status";
import { NoticeStack } from "@/components/notices/notice-stack";
import { usePageNoticeChoice } from "@/components/notices/use-page-notice-choice";
import { bookedPhrase } from "@/lib/domain/multi-node";
import { bookingPath } from "@/lib/domain/booking-link";

/** The person's current bookings are read again this often, in case the socket missed the moment. */
const POLL_MS = 30_000;
/** A keep's confirmation stays this long (or until dismissed): it answers a click, it is no standing notice. */
const KEPT_SHOWN_MS = 10_000;

const clock = (iso: string) => formatClock(Date.parse(iso));

interface Shown {
  reservationId: string;
  title: string;
  text: string;
  /** Where a Keep button belongs: the warning, with keeps left. */
  keepsLeft: number | null;
}

function title(booked: string, purpose: string): string {
  return `${booked} (“${purpose}”)`;
}

/** The warning of a booking, once: a booking across nodes is listed as its parts, and the first of them speaks for it. */
function warningOf(view: BookingView, index: number, listed: BookingView[]): Shown | null {
  const idle = view.idle;
  if (!idle || (idle.phase !== "warning" && idle.phase !== "due") || idle.exempt) return null;
  const booking = view.multiNode?.id;
  if (booking && listed.findIndex((other) => other.multiNode?.id === booking) !== index) return null;
  return {
    // Keep on any part keeps the whole booking; the booking's id is the one the other surfaces name.
    reservationId: booking ?? view.id,
    title: title(bookedPhrase(view), view.purpose),
    text: `${idleSentence(idle, clock)}. ${idle.reportOnly ? "(Trial: nothing is released yet.)" : keepsSentence(idle.keepsLeft)}`,
    keepsLeft: idle.reportOnly ? null : idle.keepsLeft,
  };
}

function releasedOf(notice: IdleNotice): Shown {
  const holding = holdingSentence(notice.holding);
  return {
    reservationId: notice.reservationId,
    title: title(notice.booked, notice.purpose),
    text: `${idleSentence({ phase: "released", idleSince: notice.idleSince, releaseAt: notice.releaseAt, idleMinutes: 0, keepsLeft: 0, exempt: false, reportOnly: false }, clock)}.${holding ? ` Note: ${holding}.` : ""}`,
    keepsLeft: null,
  };
}

/**
 * Tells the signed-in person, on whatever page they are, that a booking of
 * theirs is about to be released for idleness (with its Keep button), and
 * that one was: live over /live, and from their current bookings when the
 * page opens (the way waitlist grants are announced), to a person who
 * wants idle notices on the page (Settings → Notifications).
 */
export function IdleNotices({ userId }: { userId: string }) {
  const [warnings, setWarnings] = useState<Shown[]>([]);
  const [released, setReleased] = useState<Shown[]>([]);
  const [dismissed, setDismissed] = useState<Set<string>>(new Set());
  const [kept, setKept] = useState<Shown[]>([]);
  const [version, setVersion] = useState(0);
  const onPage = usePageNoticeChoice("booking.idle_release");

  useEffect(() => {
    let cancelled = false;
    const load = async () => {
      const result = await apiRequest<{ reservations: BookingView[] }>("GET", "/api/v1/reservations?state=current");
      if (cancelled || !result.ok) return;
      setWarnings(onPage ? result.data.reservations.map(warningOf).filter((shown): shown is Shown => shown !== null) : []);
    };
    const onIdle = (notice: IdleNotice) => {
      if (notice.userId !== userId) return;
      if (notice.event === "reservation.idle_released") {
        setReleased((current) => [...current.filter((shown) => shown.reservationId !== notice.reservationId), releasedOf(notice)]);
      }
      void load();
    };
    void load();
    const timer = setInterval(() => void load(), POLL_MS);
    const socket = getLiveSocket();
    socket.on("reservation:idle", onIdle);
    return () => {
      cancelled = true;
      clearInterval(timer);
      socket.off("reservation:idle", onIdle);
    };
  }, [userId, version, onPage]);

  // Each confirmation goes by itself after a while.
  useEffect(() => {
    if (kept.length === 0) return;
    const timer = setTimeout(() => setKept((current) => current.slice(1)), KEPT_SHOWN_MS);
    return () => clearTimeout(timer);
  }, [kept]);

  const onKept = (entry: Shown, view: BookingView) => {
    setKept((current) => [...current.filter((shown) => shown.reservationId !== entry.reservationId), { ...entry, text: keptSentence(view.idle, clock), keepsLeft: null }]);
    setVersion((value) => value + 1);
  };

  const keyOf = (entry: Shown) => `${entry.reservationId}:${entry.keepsLeft === null ? "r" : "w"}`;
  const shown = [...warnings.filter((warning) => !released.some((entry) => entry.reservationId === warning.reservationId)), ...released].filter(
    (entry) => !dismissed.has(keyOf(entry)),
  );
  return (
    <NoticeStack
      tone="warning"
      at="top"
      wide
      notices={[
        ...kept.map((entry) => ({
          key: `${entry.reservationId}:kept`,
          testId: "idle-kept",
          tone: "success" as const,
          onDismiss: () => setKept((current) => current.filter((shown) => shown.reservationId !== entry.reservationId)),
          body: (
            <p>
              <span className="font-semibold">Your booking {entry.title}:</span> {entry.text}
            </p>
          ),
        })),
        ...shown.map((entry) => ({
        key: keyOf(entry),
        testId: "idle-notice",
        onDismiss: () => setDismissed((current) => new Set([...current, keyOf(entry)])),
        body: (
          <div className="space-y-2">
            <p>
              <span className="font-semibold">Your booking {entry.title}:</span> {entry.text}{" "}
              <Link href={bookingPath(entry.reservationId)} className="font-medium underline">
                Bookings
              </Link>
            </p>
            {entry.keepsLeft !== null && (
              <div className="flex flex-wrap items-center gap-2">
                <KeepButton bookingId={entry.reservationId} keepsLeft={entry.keepsLeft} onKept={(view) => onKept(entry, view)} />
              </div>
            )}
          </div>
        ),
        })),
      ]}
    />
  );
}
