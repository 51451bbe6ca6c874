"use client";

import { useSyncExternalStore } from "react";

const noSubscription = () => () => {};

function zoneText(): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "local time";
  const offset = -new Date().getTimezoneOffset();
  const pad = (value: number) => String(value).padStart(2, "0");
  const utc = offset === 0 ? "UTC" : `UTC${offset > 0 ? "+" : "-"}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return zone === "UTC" ? "UTC" : `${zone} (${utc})`;
}

/**
 * Which zone the page's times are in: the browser's, where every page
 * formats them (lib/local-time.ts). Drawn in the browser only: the server
 * does not know the viewer's zone.
 */
export function TimeZoneNote() {
  const zone = useSyncExternalStore(noSubscription, zoneText, () => null);
  if (!zone) return null;
  return (
    <p data-testid="time-zone" className="text-xs text-slate-500 dark:text-slate-400">
      Times are shown in {zone}.
    </p>
  );
}
