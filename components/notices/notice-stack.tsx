"use client";

import { useState, type ReactNode } from "react";
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
 *
 * On a phone a notice is a slim bar of one line with a Details toggle, and
 * a stack shows about one bar (the rest scroll within it): notices there
 * covered a third of the screen, over the page they were about. The top
 * and bottom stacks together keep within 15 % of the screen until the
 * person opens a notice's details.
 */
export function NoticeStack({ notices, tone, at, wide = false }: { notices: StackedNotice[]; tone: keyof typeof TONES; at: "top" | "bottom"; wide?: boolean }) {
  const [opened, setOpened] = useState<ReadonlySet<string>>(new Set());
  if (notices.length === 0) return null;
  const anyOpen = notices.some((notice) => opened.has(notice.key));
  const toggle = (key: string) =>
    setOpened((current) => {
      const next = new Set(current);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  // Into the body: the header's backdrop blur would make it the frame of a fixed element.
  return createPortal(
    <div
      data-testid="notice-stack"
      className={`pointer-events-none fixed inset-x-0 z-40 flex flex-col items-center gap-2 overflow-y-auto px-2 sm:max-h-none sm:overflow-visible sm:px-4 ${anyOpen ? "max-h-[70vh]" : "max-h-[7.5vh]"} ${at === "top" ? "top-16" : "bottom-2 sm:bottom-4"}`}
    >
      {notices.map((notice) => {
        const { frame, hover } = TONES[notice.tone ?? tone];
        const open = opened.has(notice.key);
        return (
          <div
            key={notice.key}
            role="status"
            data-testid={notice.testId}
            className={`pointer-events-auto flex w-full items-start gap-2 rounded-lg border px-3 py-2 text-sm shadow-lg sm:w-auto sm:gap-3 sm:px-4 sm:py-3 ${wide ? "max-w-xl" : "max-w-md"} ${frame}`}
          >
            {/* Closed on a phone: the first line only, so that the bar stays slim; the rest is one tap away. */}
            <div className={`min-w-0 flex-1 sm:max-h-none sm:overflow-visible ${open ? "" : "max-h-5 overflow-hidden"}`}>{notice.body}</div>
            <button
              type="button"
              aria-expanded={open}
              onClick={() => toggle(notice.key)}
              className={`-my-0.5 shrink-0 rounded px-1.5 py-0.5 text-xs font-medium underline focus-visible:outline-2 focus-visible:outline-sky-500 sm:hidden ${hover}`}
            >
              {open ? "Less" : "Details"}
            </button>
            <DismissButton onClick={notice.onDismiss} hoverClass={hover} />
          </div>
        );
      })}
    </div>,
    document.body,
  );
}
