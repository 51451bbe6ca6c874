"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { getLiveSocket } from "@/components/live/live-socket";
import type { PersonNoticeView } from "@/lib/domain/person-notices";
import { NoticeStack } from "@/components/notices/notice-stack";

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

  return (
    <NoticeStack
      tone="info"
      at="top"
      notices={notices.map((notice) => ({
        key: notice.id,
        testId: "person-notice",
        onDismiss: () => setNotices((current) => current.filter((item) => item.id !== notice.id)),
        body: (
          <p>
            <span className="font-semibold">{notice.title}.</span>{" "}
            <Link href={notice.path} className="font-medium underline">
              Open
            </Link>
          </p>
        ),
      }))}
    />
  );
}
