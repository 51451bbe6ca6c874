"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { createPortal } from "react-dom";
import { getLiveSocket } from "@/components/live/live-socket";
import type { PersonNoticeView } from "@/lib/person-notices";
import { DismissButton } from "@/components/ui/dismiss-button";

/**
 * Notices about the signed-in person's own bookings ("ends in 15 minutes",
 * "changed by an admin"), as they arrive on /live while a page is open.
 * Waitlist grants have their own toast (grant-toasts.tsx).
 */
export function PersonNoticeToasts() {
  const [notices, setNotices] = useState<PersonNoticeView[]>([]);

  useEffect(() => {
    const socket = getLiveSocket();
    const onNotice = (notice: PersonNoticeView) => setNotices((current) => [...current.filter((item) => item.id !== notice.id), notice].slice(-4));
    socket.on("notice:person", onNotice);
    return () => {
      socket.off("notice:person", onNotice);
    };
  }, []);

  if (notices.length === 0) return null;
  return createPortal(
    <div className="pointer-events-none fixed inset-x-0 top-16 z-40 flex flex-col items-center gap-2 px-4">
      {notices.map((notice) => (
        <div
          key={notice.id}
          role="status"
          data-testid="person-notice"
          className="pointer-events-auto flex max-w-md items-start gap-3 rounded-lg border border-sky-300 bg-sky-50 px-4 py-3 text-sm text-sky-950 shadow-lg dark:border-sky-700 dark:bg-sky-950 dark:text-sky-100"
        >
          <p>
            <span className="font-semibold">{notice.title}.</span>{" "}
            <Link href={notice.path} className="font-medium underline">
              Open
            </Link>
          </p>
          <DismissButton onClick={() => setNotices((current) => current.filter((item) => item.id !== notice.id))} hoverClass="hover:bg-sky-200/60 dark:hover:bg-sky-900" />
        </div>
      ))}
    </div>,
    document.body,
  );
}
