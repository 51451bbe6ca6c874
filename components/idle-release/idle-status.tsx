"use client";

import { useState } from "react";
import { apiRequest } from "@/lib/api-client";
import { idleSentence, keepsSentence, type BookingIdleView } from "@/lib/domain/idle-release";
import { formatClock } from "@/lib/format/local-time";
import type { BookingView } from "@/lib/domain/booking-types";
import { buttonClass } from "@/components/ui/button-styles";

const clock = (iso: string) => formatClock(Date.parse(iso));

/** "Keep": the button on the booking and on the page notice; the API answers with the booking as it is now. */
export function KeepButton({ bookingId, onKept, keepsLeft }: { bookingId: string; onKept: (kept: BookingView) => void; keepsLeft: number }) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (keepsLeft <= 0) return null;
  return (
    <>
      <button
        type="button"
        disabled={pending}
        className={buttonClass("secondary", "sm")}
        onClick={async () => {
          setPending(true);
          setError(null);
          const result = await apiRequest<BookingView>("POST", `/api/v1/reservations/${bookingId}/keep`);
          setPending(false);
          if (result.ok) onKept(result.data);
          else setError(result.error.message);
        }}
      >
        Keep
      </button>
      {error && (
        <span role="alert" className="text-sm text-red-700 dark:text-red-300">
          {error}
        </span>
      )}
    </>
  );
}

/**
 * A booking's idle standing on its card: quiet while it only counts,
 * amber with a Keep button once the release is announced, and, for a
 * booking idle release ended, when and after how long.
 */
export function IdleStatus({ bookingId, idle, onKept }: { bookingId: string; idle: BookingIdleView | null; onKept: () => void }) {
  if (!idle) return null;
  const sentence = idleSentence(idle, clock);
  if (idle.phase === "idle" || idle.exempt) {
    return (
      <p data-testid="idle-status" className="text-sm text-slate-600 dark:text-slate-400">
        {sentence}
        {idle.exempt ? " (exempt from idle release)" : ""}
      </p>
    );
  }
  if (idle.phase === "released") {
    return (
      <p data-testid="idle-status" className="rounded-md bg-slate-100 px-3 py-2 text-sm text-slate-800 dark:bg-slate-800 dark:text-slate-200">
        {sentence}
      </p>
    );
  }
  return (
    <div data-testid="idle-status" role="status" className="flex flex-wrap items-center gap-2 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-100">
      <p className="flex-1">
        {sentence}. {idle.reportOnly ? "(Trial: nothing is released yet.)" : keepsSentence(idle.keepsLeft)}
      </p>
      {!idle.reportOnly && <KeepButton bookingId={bookingId} keepsLeft={idle.keepsLeft} onKept={onKept} />}
    </div>
  );
}
