"use client";

import type { ReactNode } from "react";
import { createPortal } from "react-dom";
import { DismissButton } from "@/components/ui/dismiss-button";

const TONES = {
  success: {
    frame: "border-emerald-300 bg-emerald-50 text-emerald-950 dark:border-emerald-700 dark:bg-emerald-950 dark:text-emerald-100",
    hover: "hover:bg-emerald-200/60 dark:hover:bg-emerald-900",
  },
  info: { frame: "border-sky-300 bg-sky-50 text-sky-950 dark:border-sky-700 dark:bg-sky-950 dark:text-sky-100", hover: "hover:bg-sky-200/60 dark:hover:bg-sky-900" },
  warning: {
    frame: "border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100",
    hover: "hover:bg-amber-200/60 dark:hover:bg-amber-900",
  },
} as const;

export interface StackedNotice {
  key: string;
  /** The notice's test id (grant-toast, person-notice, idle-notice): what e2e specs look for. */
  testId: string;
  body: ReactNode;
  onDismiss: () => void;
  /** Its own tone where one stack holds notices of two kinds (a grant above a waiting request). */
  tone?: keyof typeof TONES;
}

/**
 * The frame every page notice of the signed-in person shares (a waitlist
 * grant, a booking notice, an idle warning): a stack of dismissable notices
 * at the top or bottom of the screen, in the notice's tone.
 */
export function NoticeStack({ notices, tone, at, wide = false }: { notices: StackedNotice[]; tone: keyof typeof TONES; at: "top" | "bottom"; wide?: boolean }) {
  if (notices.length === 0) return null;
  // Into the body: the header's backdrop blur would make it the frame of a fixed element.
  return createPortal(
    <div className={`pointer-events-none fixed inset-x-0 z-40 flex flex-col items-center gap-2 px-4 ${at === "top" ? "top-16" : "bottom-4"}`}>
      {notices.map((notice) => {
        const { frame, hover } = TONES[notice.tone ?? tone];
        return (
          <div
            key={notice.key}
            role="status"
            data-testid={notice.testId}
            className={`pointer-events-auto flex items-start gap-3 rounded-lg border px-4 py-3 text-sm shadow-lg ${wide ? "max-w-xl" : "max-w-md"} ${frame}`}
          >
            {notice.body}
            <DismissButton onClick={notice.onDismiss} hoverClass={hover} />
          </div>
        );
      })}
    </div>,
    document.body,
  );
}
