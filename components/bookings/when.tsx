"use client";

import { formatFull, formatWhen } from "@/lib/format/local-time";

/**
 * A booking time in the viewer's zone ("today 14:00"). Empty during server
 * rendering, whose zone is not the viewer's: `nowMs` is 0 until hydration.
 */
export function When({ iso, nowMs, capital = false }: { iso: string; nowMs: number; capital?: boolean }) {
  const text = nowMs ? formatWhen(iso, nowMs) : "";
  return (
    <time dateTime={iso} title={nowMs ? formatFull(iso) : undefined}>
      {capital ? text.charAt(0).toUpperCase() + text.slice(1) : text}
    </time>
  );
}
