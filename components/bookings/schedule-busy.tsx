import type { GpuReconciliation } from "@/lib/domain/attribution";
import { GPU_STATE_LABELS, type GpuState, unseenUsePhrase } from "@/lib/domain/gpu-availability";
import { unseenUseNow } from "@/lib/live/gpu-state-now";
import type { LiveGpu } from "@/lib/live/live";
import { personName } from "@/lib/format/person-name";
import { percentAt } from "@/components/bookings/schedule-axis";

/** How far back the band reaches when no process says when it started. */
const UNKNOWN_START_MS = 30 * 60_000;

/** Who runs on a GPU now, as people are shown: the gpudesk name where the server knows it, else the login; "no process visible (40 GiB held)" for use nobody can be named for. */
export function runnerNames(reading: LiveGpu | undefined, reconciliation: GpuReconciliation | undefined): string[] {
  const names = reconciliation
    ? reconciliation.processes.map((process) => (process.runner ? personName(process.runner) : (process.login ?? "unknown")))
    : (reading?.processes ?? []).map((process) => process.user ?? "unknown");
  if (names.length === 0 && reading && unseenUseNow(reading, reconciliation)) return [unseenUsePhrase(reading.memoryUsedMiB)];
  return [...new Set(names)];
}

interface BusyBandProps {
  state: GpuState;
  reading: LiveGpu | undefined;
  names: string[];
  fromMs: number;
  toMs: number;
  nowMs: number;
}

/**
 * Work that runs on a GPU now without a booking (or against one), drawn on
 * its row up to the red "now" line: hatched, so that nobody takes an empty
 * row for a free GPU. It starts where its oldest process started.
 */
export function BusyBand({ state, reading, names, fromMs, toMs, nowMs }: BusyBandProps) {
  const starts = (reading?.processes ?? []).map((process) => (process.startedAt ? Date.parse(process.startedAt) : Number.NaN)).filter(Number.isFinite);
  const startMs = Math.max(fromMs, Math.min(nowMs - 60_000, starts.length > 0 ? Math.min(...starts) : nowMs - UNKNOWN_START_MS));
  const left = percentAt(startMs, fromMs, toMs);
  const right = percentAt(nowMs, fromMs, toMs);
  const label = `${GPU_STATE_LABELS[state]} now: ${names.join(", ") || "unknown"}`;
  return (
    <span
      data-testid="schedule-busy-now"
      data-state={state}
      title={label}
      aria-label={label}
      role="img"
      className={`absolute bottom-0.5 z-[1] h-4 overflow-visible rounded-l-md border border-r-0 text-[11px] leading-[14px] font-semibold whitespace-nowrap text-amber-950 dark:text-amber-100 ${
        state === "conflict" ? "border-fuchsia-600 bg-fuchsia-200/70 dark:bg-fuchsia-900/60" : "border-amber-500 bg-amber-200/70 dark:bg-amber-900/60"
      } bg-[repeating-linear-gradient(135deg,transparent_0_6px,rgb(0_0_0/0.12)_6px_9px)]`}
      style={{ left: `${left}%`, width: `${Math.max(right - left, 0.5)}%` }}
    >
      {/* The words sit just right of the now line, in the row's lower part: bookings keep to its upper part (schedule-view.tsx), so the two never cover each other. */}
      <span className="absolute top-0 left-full ml-1.5 rounded bg-white/85 px-1 dark:bg-slate-900/85">{label}</span>
    </span>
  );
}
