"use client";

import { formatRelativeTime } from "@/lib/format/format";
import { formatFull } from "@/lib/format/local-time";
import { useNow } from "@/components/live/use-now";

/**
 * "5 min ago", with the full date on hover. Empty during server rendering
 * (whose clock and time zone are not the viewer's), filled in on hydration.
 */
export function TimeAgo({ iso, never = "never" }: { iso: string | null; never?: string }) {
  const now = useNow(15_000);
  if (!iso) return <span className="text-slate-500 dark:text-slate-400">{never}</span>;
  if (now === 0) return <time dateTime={iso} />;
  return (
    <time dateTime={iso} title={formatFull(iso)}>
      {formatRelativeTime(iso, now)}
    </time>
  );
}
