"use client";

import { formatWhen } from "@/lib/local-time";

/**
 * A booking time in the viewer's zone ("today 14:00"). Empty during server
 * rendering, whose zone is not the viewer's: `nowMs` is 0 until hydration.
 */
export function When({ iso, nowMs }: { iso: string; nowMs: number }) {
  return (
    <time dateTime={iso} title={nowMs ? new Date(iso).toLocaleString() : undefined}>
      {nowMs ? formatWhen(iso, nowMs) : ""}
    </time>
  );
}
