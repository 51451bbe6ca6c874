"use client";

import { useEffect, useState } from "react";
import { DismissButton } from "@/components/ui/dismiss-button";

interface FlashNoticeProps {
  message: string;
  /** Query parameter that brought the notice; it is taken out of the address so a reload does not repeat it. */
  param: string;
}

/** A one-time message after a redirect (e.g. a member who opened an admin page), dismissable, announced politely. */
export function FlashNotice({ message, param }: FlashNoticeProps) {
  const [open, setOpen] = useState(true);

  useEffect(() => {
    const url = new URL(window.location.href);
    if (!url.searchParams.has(param)) return;
    url.searchParams.delete(param);
    window.history.replaceState(window.history.state, "", url);
  }, [param]);

  if (!open) return null;
  return (
    <div className="pointer-events-none fixed inset-x-0 bottom-4 z-40 flex justify-center px-4">
      <div
        role="status"
        className="pointer-events-auto flex max-w-md items-start gap-3 rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950 shadow-lg dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100"
      >
        <p>{message}</p>
        <DismissButton onClick={() => setOpen(false)} hoverClass="hover:bg-amber-200/60 dark:hover:bg-amber-900" />
      </div>
    </div>
  );
}
