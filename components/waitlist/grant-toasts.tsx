"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { apiRequest } from "@/lib/api-client";
import { retainLiveFleet } from "@/components/live/live-fleet-store";
import { getLiveSocket } from "@/components/live/live-socket";
import type { GrantNotice, WaitlistView } from "@/lib/waitlist-schema";
import { NoticeStack } from "@/components/notices/notice-stack";
import { usePageNoticeChoice } from "@/components/notices/use-page-notice-choice";

/** While something waits, the requests are read again this often, in case the socket missed the moment. */
const POLL_MS = 20_000;
const SEEN_KEY = "gpudesk.seenGrants";

function seenGrants(): Set<string> {
  try {
    return new Set(JSON.parse(window.localStorage.getItem(SEEN_KEY) ?? "[]") as string[]);
  } catch {
    return new Set();
  }
}

function markSeen(ids: string[]): void {
  const seen = [...seenGrants(), ...ids].slice(-50);
  try {
    window.localStorage.setItem(SEEN_KEY, JSON.stringify(seen));
  } catch {
    // Private mode: the toast may show again on the next page, which is harmless.
  }
}

interface Toast {
  entryId: string;
  /** "GPUs 2, 3 on node-b", or "2 GPUs" when read back from the request. */
  text: string;
  purpose: string;
}

function toastOf(entry: WaitlistView): Toast {
  return { entryId: entry.id, purpose: entry.purpose, text: `${entry.count} GPU${entry.count > 1 ? "s" : ""} on ${entry.host ?? "a host"}` };
}

/**
 * Tells the signed-in person, on whatever page they are, that a waiting
 * request of theirs became a reservation: at once over /live while they
 * wait (the socket stays open for it), and on the next page they open when
 * it happened while they were away. Each grant is shown once per browser,
 * and only to a person who wants grants on the page (Settings → Notifications).
 */
export function GrantToasts({ userId }: { userId: string }) {
  const [waiting, setWaiting] = useState(false);
  const [toasts, setToasts] = useState<Toast[]>([]);
  const onPage = usePageNoticeChoice("waitlist.granted");

  useEffect(() => {
    let cancelled = false;
    const show = (items: Toast[]) => {
      const seen = seenGrants();
      const fresh = items.filter((item) => !seen.has(item.entryId));
      if (fresh.length === 0) return;
      markSeen(fresh.map((item) => item.entryId));
      setToasts((current) => [...current, ...fresh.filter((item) => !current.some((shown) => shown.entryId === item.entryId))]);
    };
    const load = async () => {
      const result = await apiRequest<{ waiting: WaitlistView[] }>("GET", "/api/v1/waitlist?mine=1");
      if (cancelled || !result.ok) return;
      setWaiting(result.data.waiting.some((entry) => entry.status === "waiting"));
      // Read back, not announced: the person's choice decides here as the dispatcher's does for live grants.
      if (onPage) show(result.data.waiting.filter((entry) => entry.status === "granted").map(toastOf));
    };
    const onGranted = (notice: GrantNotice) => {
      if (notice.userId !== userId) return;
      const gpus = `${notice.units} on ${notice.hostName}`;
      show([{ entryId: notice.entryId, text: gpus, purpose: notice.purpose }]);
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

  // Keep the live socket open while a request waits, so the grant arrives the moment it happens.
  useEffect(() => (waiting ? retainLiveFleet() : undefined), [waiting]);

  return (
    <NoticeStack
      tone="success"
      at="bottom"
      notices={toasts.map((toast) => ({
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
      }))}
    />
  );
}
