import type { ConnectionStatus } from "@/lib/live/live-fleet-state";
import { formatRelativeTime } from "@/lib/format/format";

interface ConnectionBannerProps {
  status: ConnectionStatus;
  /** Browser-clock ms of the last update, for the age of what the page shows. */
  lastUpdateAt: number | null;
  nowMs: number;
  onRetry: () => void;
}

/**
 * Shown while the data on screen is not live, so that nobody books a GPU
 * because a frozen card says it is free.
 */
export function ConnectionBanner({ status, lastUpdateAt, nowMs, onRetry }: ConnectionBannerProps) {
  if (status !== "reconnecting" && status !== "disconnected") return null;
  const age = lastUpdateAt === null ? null : formatRelativeTime(lastUpdateAt, nowMs);

  return (
    <div
      role="alert"
      data-testid="connection-banner"
      className="flex flex-wrap items-center gap-x-3 gap-y-1 rounded-lg border border-warn/60 bg-warn/15 px-4 py-2.5 text-sm text-amber-950 dark:text-amber-100"
    >
      <strong className="font-semibold">
        {status === "reconnecting" ? "Connection lost — reconnecting…" : "Connection lost."}
      </strong>
      {age && <span>Showing data from {age}.</span>}
      {status === "disconnected" && (
        <button
          type="button"
          onClick={onRetry}
          className="ml-auto rounded-md border border-amber-700/40 px-2.5 py-1 font-medium hover:bg-warn/25 focus-visible:outline-2 focus-visible:outline-sky-500"
        >
          Reconnect
        </button>
      )}
    </div>
  );
}
