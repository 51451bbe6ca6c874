import { memo } from "react";
import { formatMemoryUsage, ratioPercent } from "@/lib/format/format";

interface MemoryBarProps {
  usedMiB: number | null;
  totalMiB: number | null;
  stale?: boolean;
}

/** Above this share of memory a new job on the GPU is likely to die out of memory. */
const OOM_RISK_PCT = 92;

export const MemoryBar = memo(function MemoryBar({ usedMiB, totalMiB, stale = false }: MemoryBarProps) {
  const pct = ratioPercent(usedMiB, totalMiB);
  const text = formatMemoryUsage(usedMiB, totalMiB);
  const fill = stale ? "bg-offline" : pct !== null && pct >= OOM_RISK_PCT ? "bg-danger" : "bg-(--chart-mem)";

  return (
    <div
      role="meter"
      aria-label="Memory used"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={pct === null ? undefined : Math.round(pct)}
      aria-valuetext={text}
      className="h-2 w-full overflow-hidden rounded-full bg-slate-200 dark:bg-slate-700"
    >
      {pct !== null && <div className={`h-full rounded-full ${fill}`} style={{ width: `${Math.max(pct, 1)}%` }} />}
    </div>
  );
});
