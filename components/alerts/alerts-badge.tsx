"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import type { AlertSummary } from "@/lib/domain/alerts";
import { apiRequest } from "@/lib/api-client";
import { getLiveSocket } from "@/components/live/live-socket";
import { afterFirstScreen } from "@/components/live/live-fleet-store";
import { focusRing } from "@/components/nav/nav-styles";

/** Between live updates (pages without the live socket), the count is read this often. */
const POLL_MS = 30_000;

/**
 * The bell in the header: how many open alerts that concern the viewer
 * nobody has acknowledged yet (bookers: their GPUs; admins: all). Read on
 * mount and every half minute, and at once when /live announces a change
 * on pages that hold the live socket open.
 */
export function AlertsBadge() {
  const [summary, setSummary] = useState<AlertSummary | null>(null);

  useEffect(() => {
    let cancelled = false;
    let debounce: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      const result = await apiRequest<AlertSummary>("GET", "/api/v1/alerts/summary");
      if (!cancelled && result.ok) setSummary(result.data);
    };
    const soon = () => {
      clearTimeout(debounce);
      debounce = setTimeout(() => void load(), 250);
    };
    // Read once the page's first screen is live: on the fleet page the snapshot goes first.
    const cancelFirst = afterFirstScreen(() => void load());
    const timer = setInterval(() => void load(), POLL_MS);
    const socket = getLiveSocket();
    socket.on("alerts:update", soon);
    socket.on("alerts:snapshot", soon);
    return () => {
      cancelled = true;
      cancelFirst();
      clearInterval(timer);
      clearTimeout(debounce);
      socket.off("alerts:update", soon);
      socket.off("alerts:snapshot", soon);
    };
  }, []);

  const count = summary?.unacknowledged ?? 0;
  const label = count === 0 ? "Alerts: none open" : `Alerts: ${count} open`;
  return (
    <Link
      href="/alerts"
      aria-label={label}
      title={summary && summary.open > count ? `${label}, ${summary.open - count} acknowledged` : label}
      data-testid="alerts-badge"
      data-count={count}
      className={`relative inline-flex size-9 items-center justify-center rounded-md text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800 ${focusRing}`}
    >
      <svg aria-hidden viewBox="0 0 24 24" className="size-5" fill="none" stroke="currentColor" strokeWidth={1.8} strokeLinecap="round" strokeLinejoin="round">
        <path d="M6 8a6 6 0 1 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
        <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
      </svg>
      {count > 0 && (
        <span className="absolute -top-0.5 -right-0.5 min-w-5 rounded-full bg-red-600 px-1 text-center text-[11px] leading-5 font-semibold text-white tabular-nums dark:bg-red-500">
          {count > 99 ? "99+" : count}
        </span>
      )}
    </Link>
  );
}
