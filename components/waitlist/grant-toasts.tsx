"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { apiRequest } from "@/lib/api-client";
import { grantsStillHeld } from "@/lib/grant-toasts";
import { getFleetState, retainLiveFleet, subscribeFleet } from "@/components/live/live-fleet-store";
import { getLiveSocket } from "@/components/live/live-socket";
import { type GrantNotice, type WaitlistView, waitedPhrase } from "@/lib/domain/waitlist-schema";
import { NoticeStack, type StackedNotice } from "@/components/notices/notice-stack";
import { usePageNoticeChoice } from "@/components/notices/use-page-notice-choice";

/** While something waits, the requests are read again this often, in case the socket missed the moment. */
const POLL_MS = 20_000;
const SEEN_KEY = "gpudesk.seenGrants";

/** A set of ids kept in the browser's storage (the last 50); empty where storage is not allowed. */
function storedIds(storage: () => Storage, key: string) {
  const read = (): Set<string> => {
    try {
      return new Set(JSON.parse(storage().getItem(key) ?? "[]") as string[]);
    } catch {
      return new Set();
    }
  };
  const add = (ids: string[]): Set<string> => {
    const all = new Set([...read(), ...ids]);
    try {
      storage().setItem(key, JSON.stringify([...all].slice(-50)));
    } catch {
      // Private mode: the notice may show again on the next page, which is harmless.
    }
    return all;
  };
  return { read, add };
}

const seenGrants = storedIds(() => window.localStorage, SEEN_KEY);
/** Waiting notices dismissed in this tab. */
const dismissedWaits = storedIds(() => window.sessionStorage, "gpudesk.dismissedWaits");

interface Toast {
  entryId: string;
  /** The booking the grant made; the toast goes when it is released. */
  reservationId: string | null;
  /** Browser clock when it appeared. */
  shownAt: number;
  /** "GPUs 2, 3 on node-b", or "2 GPUs" when read back from the request. */
  text: string;
  purpose: string;
}

function toastOf(entry: WaitlistView): Toast {
  return { entryId: entry.id, reservationId: entry.reservationId, shownAt: Date.now(), purpose: entry.purpose, text: waitedPhrase(entry, "a host") };
}

/**
 * Tells the signed-in person, on whatever page they are, that a waiting
 * request of theirs became a booking: at once over /live while they
 * wait (the socket stays open for it), and on the next page they open when
 * it happened while they were away. Each grant is shown once per browser,
 * and only to a person who wants grants on the page (Settings → Notifications).
 */
export function GrantToasts({ userId }: { userId: string }) {
  const pathname = usePathname();
  const [waiting, setWaiting] = useState(false);
  // Requests of theirs that something holds back, with why; dismissed per request and cause.
  const [held, setHeld] = useState<WaitlistView[]>([]);
  const [dismissed, setDismissed] = useState<Set<string>>(new Set());
  const [toasts, setToasts] = useState<Toast[]>([]);
  const onPage = usePageNoticeChoice("waitlist.granted");

  useEffect(() => {
    let cancelled = false;
    const show = (items: Toast[]) => {
      const seen = seenGrants.read();
      const fresh = items.filter((item) => !seen.has(item.entryId));
      if (fresh.length === 0) return;
      seenGrants.add(fresh.map((item) => item.entryId));
      setToasts((current) => [...current, ...fresh.filter((item) => !current.some((shown) => shown.entryId === item.entryId))]);
    };
    const load = async () => {
      const result = await apiRequest<{ waiting: WaitlistView[] }>("GET", "/api/v1/waitlist?mine=1");
      if (cancelled || !result.ok) return;
      setWaiting(result.data.waiting.some((entry) => entry.status === "waiting"));
      setHeld(result.data.waiting.filter((entry) => entry.status === "waiting" && entry.waitingBecause !== null));
      // Read back, not announced: the person's choice decides here as the dispatcher's does for live grants.
      if (onPage) show(result.data.waiting.filter((entry) => entry.status === "granted").map(toastOf));
    };
    const onGranted = (notice: GrantNotice) => {
      if (notice.userId !== userId) return;
      const gpus = `${notice.units} on ${notice.hostName}`;
      show([{ entryId: notice.entryId, reservationId: notice.reservationId, shownAt: Date.now(), text: gpus, purpose: notice.purpose }]);
      void load();
    };
    void load();
    const timer = setInterval(() => void load(), POLL_MS);
    const socket = getLiveSocket();
    socket.on("waitlist:granted", onGranted);
    return () => {
      cancelled = true;
      clearInterval(timer);
      socket.off("waitlist:granted", onGranted);
    };
  }, [userId, onPage]);

  // What was dismissed on an earlier page of this tab stays dismissed (read after hydration: storage is the browser's).
  useEffect(() => setDismissed(dismissedWaits.read()), []);

  // Keep the live socket open while a request waits, so the grant arrives the moment it happens.
  useEffect(() => (waiting ? retainLiveFleet() : undefined), [waiting]);

  // "Your GPUs are ready" is true while the booking lasts: the toast goes when the live bookings no longer hold it (released, cancelled).
  const seenBookings = useRef(new Set<string>());
  const watching = toasts.some((toast) => toast.reservationId !== null);
  useEffect(() => {
    if (!watching) return;
    const check = () => {
      const fleet = getFleetState();
      if (!fleet.hasSnapshot) return;
      const bookingIds = new Set(fleet.bookings.map((booking) => booking.reservationId));
      setToasts((current) => {
        const kept = grantsStillHeld(current, { bookingIds, updatedAt: fleet.lastUpdateAt }, seenBookings.current);
        for (const toast of current) if (toast.reservationId && bookingIds.has(toast.reservationId)) seenBookings.current.add(toast.reservationId);
        return kept.length === current.length ? current : kept;
      });
    };
    const release = retainLiveFleet();
    const unsubscribe = subscribeFleet(check);
    check();
    return () => {
      unsubscribe();
      release();
    };
  }, [watching]);

  // The queue page says it on each row already.
  const waitNotice =
    pathname === "/queue"
      ? null
      : waitingNotice(held, dismissed, (key) => setDismissed(dismissedWaits.add([key])));
  const grants = toasts.map(
    (toast): StackedNotice => ({
      key: toast.entryId,
      testId: "grant-toast",
      onDismiss: () => setToasts((current) => current.filter((item) => item.entryId !== toast.entryId)),
      body: (
        <p>
          <span className="font-semibold">Your GPUs are ready:</span> {toast.text} for “{toast.purpose}”.{" "}
          <Link href="/reservations" className="font-medium underline">
            Launch settings
          </Link>
        </p>
      ),
    }),
  );
  // One stack at the bottom: two would lie on top of each other.
  return <NoticeStack tone="success" at="bottom" notices={waitNotice ? [...grants, waitNotice] : grants} />;
}

/**
 * One short line for the person's held requests, on every page but the
 * queue: the first one's reason (two lines at most, the queue has the
 * rest) and how many more wait. Dismissed for the browser tab until a
 * request or its cause changes.
 */
function waitingNotice(held: WaitlistView[], dismissed: Set<string>, dismiss: (key: string) => void): StackedNotice | null {
  if (held.length === 0) return null;
  const key = held.map((entry) => `${entry.id}:${entry.waitingBecause?.kind}`).join(",");
  if (dismissed.has(key)) return null;
  const [first] = held;
  const more = held.length > 1 ? ` and ${held.length - 1} more` : "";
  const reason = first!.waitingBecause?.message ?? "";
  return {
    key: "waiting",
    testId: "waiting-notice",
    tone: "warning",
    onDismiss: () => dismiss(key),
    body: (
      <div className="flex min-w-0 items-start gap-3">
        <p className="line-clamp-2 min-w-0" title={reason}>
          <span className="font-semibold">
            “{first!.purpose}”{more}:
          </span>{" "}
          {reason.charAt(0).toUpperCase() + reason.slice(1)}
        </p>
        <Link href="/queue" className="shrink-0 font-medium underline">
          Queue
        </Link>
      </div>
    ),
  };
}
