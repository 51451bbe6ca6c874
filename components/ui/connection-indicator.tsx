import type { ConnectionStatus } from "@/lib/live/live-fleet-state";

const LOOK: Record<ConnectionStatus, { label: string; dot: string }> = {
  connecting: { label: "Connecting…", dot: "bg-slate-400" },
  live: { label: "Live", dot: "bg-free" },
  reconnecting: { label: "Reconnecting…", dot: "bg-warn" },
  disconnected: { label: "Disconnected", dot: "bg-danger" },
};

/** A polite live region: a screen reader hears "Reconnecting…" without losing its place. */
export function ConnectionIndicator({ status }: { status: ConnectionStatus }) {
  const look = LOOK[status];
  return (
    <span
      role="status"
      data-testid="connection-status"
      data-status={status}
      className="inline-flex items-center gap-2 text-sm text-slate-600 dark:text-slate-300"
    >
      <span className="relative flex size-2.5" aria-hidden>
        {status === "live" && <span className="absolute inline-flex size-full animate-live-ping rounded-full bg-free opacity-60 motion-reduce:hidden" />}
        <span className={`relative inline-flex size-2.5 rounded-full ${look.dot}`} />
      </span>
      {look.label}
    </span>
  );
}
