"use client";

import Link from "next/link";
import { useSyncExternalStore } from "react";
import { viewerTimeZone, zoneOffsetMs } from "@/lib/format/local-time";

const noSubscription = () => () => {};

/** "Europe/Berlin (UTC+01:00)": the zone the page's times are in, and its offset now. */
export function zoneText(zone: string, nowMs: number): string {
  const offset = Math.round(zoneOffsetMs(nowMs, { timeZone: zone }) / 60_000);
  const pad = (value: number) => String(value).padStart(2, "0");
  const utc = offset === 0 ? "UTC" : `UTC${offset > 0 ? "+" : "-"}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return zone === "UTC" ? "UTC" : `${zone} (${utc})`;
}

/**
 * Which zone the page's times are in: the person's own (Settings →
 * Account) or else the browser's, as lib/format/local-time.ts formats them.
 * Drawn in the browser only: the server does not know the viewer's zone.
 */
export function TimeZoneNote() {
  const zone = useSyncExternalStore(noSubscription, () => zoneText(viewerTimeZone(), Math.floor(Date.now() / 3_600_000) * 3_600_000), () => null);
  if (!zone) return null;
  return (
    <p data-testid="time-zone" className="text-xs text-slate-500 dark:text-slate-400">
      Times are shown in {zone}.{" "}
      <Link href="/settings/account#time-zone" className="text-sky-700 hover:underline dark:text-sky-400">
        Change
      </Link>
    </p>
  );
}
