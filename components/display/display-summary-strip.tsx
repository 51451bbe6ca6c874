"use client";

import { useLayoutEffect, useRef, useState } from "react";
import { GPU_STATE_LABELS, type GpuState } from "@/lib/domain/gpu-availability";
import { hiddenModelsText, type DisplaySummary } from "@/lib/live/display-state";
import { STATE_SWATCHES } from "@/components/ui/gpu-state-colours";


/** In-use kinds always show (0 is news too); the rarer states only when some GPU is in them. */
const ALWAYS: GpuState[] = ["booked_in_use", "unbooked_use", "booked_idle"];
const WHEN_ANY: GpuState[] = ["conflict", "error", "offline"];

interface DisplaySummaryStripProps {
  summary: DisplaySummary;
  /** Browser-clock ms of the last update, or null before the first. */
  lastUpdateLabel: string | null;
  page: number;
  pageCount: number;
  /** Host names in `?hosts=` that are not in the fleet. */
  unknownHosts: string[];
  /** Open alerts; null where the server sends none (display tokens get no alerts). */
  openAlerts: number | null;
  height: number;
  scale: number;
  /** The fleet is generated (no nvidia-smi on the server): said on the strip, so nobody at the wall takes it for the lab's. */
  simulated?: boolean;
  /** Off where the screen has a legend with the counts of every state (the overview layout): the room goes to the free-now models. */
  stateCounts?: boolean;
}

/** The line read first from the door: how many GPUs are free now, of which model, and how fresh that is. */
export function DisplaySummaryStrip({ summary, lastUpdateLabel, page, pageCount, unknownHosts, openAlerts, height, scale, simulated = false, stateCounts = true }: DisplaySummaryStripProps) {
  const base = 18 * scale;
  const big = 30 * scale;
  const models = summary.freeByModel;
  const modelsKey = models.map((entry) => entry.model).join("\n");
  // How many models fit on the strip's one line; the rest are named as "+N more models", never dropped silently.
  const [fitting, setFitting] = useState({ key: "", shown: models.length, base });
  const current = fitting.key === modelsKey && fitting.base === base ? fitting.shown : models.length;
  const chips = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const box = chips.current;
    if (!box) return;
    // A chip that wrapped sits below the first line, which the strip's height hides: show one model fewer.
    const lineTop = box.firstElementChild?.getBoundingClientRect().top ?? 0;
    const wrapped = [...box.children].some((chip) => chip.getBoundingClientRect().top > lineTop + 1);
    if (wrapped && current > 0) setFitting({ key: modelsKey, shown: current - 1, base });
    else if (fitting.key !== modelsKey || fitting.base !== base) setFitting({ key: modelsKey, shown: current, base });
  });
  const hidden = models.slice(current);

  return (
    <header
      data-testid="display-summary"
      className="flex items-center gap-[1.2em] overflow-hidden rounded-md border-2 border-zinc-700 bg-zinc-950 px-[0.8em] text-white"
      style={{ height, fontSize: base, lineHeight: 1.15 }}
    >
      {/* Chips that do not fit would wrap onto a second line, which the strip's height hides: the effect above shows fewer and says how many more. */}
      {/* The free-now models keep room for "FREE NOW" and a chip or two (min width) on a narrow screen, where the strip's other end gives way. */}
      <div ref={chips} className="flex h-full min-w-0 flex-1 flex-wrap items-center gap-x-[1em] overflow-hidden" style={{ minWidth: "min(50%, 16em)" }}>
        <span className="flex h-full shrink-0 items-center font-bold tracking-wide text-emerald-300 uppercase">Free now</span>
        {models.slice(0, current).map(({ model, free, total }) => (
          <span key={model} data-testid="display-free-model" className="flex h-full shrink-0 items-center whitespace-nowrap">
            <span className="flex items-baseline gap-[0.35em]">
              <span className={`font-bold tabular-nums ${free > 0 ? "text-emerald-300" : "text-zinc-400"}`} style={{ fontSize: big }}>
                {free}
              </span>
              <span className="font-semibold">{model}</span>
              <span className="text-zinc-400 tabular-nums">/ {total}</span>
            </span>
          </span>
        ))}
        {hidden.length > 0 && (
          <span data-testid="display-free-more" className="flex h-full shrink-0 items-center font-semibold whitespace-nowrap text-zinc-200">
            {hiddenModelsText(hidden)}
          </span>
        )}
        {unknownHosts.length > 0 && (
          <span className="flex h-full shrink-0 items-center font-semibold text-amber-300">Unknown host: {unknownHosts.join(", ")}</span>
        )}
      </div>

      {stateCounts && (
        <ul className="flex shrink-0 items-center gap-[0.9em]" aria-label="GPUs by state">
          {[...ALWAYS, ...WHEN_ANY.filter((state) => summary.counts.byState[state] > 0)].map((state) => (
            <li key={state} data-testid={`display-count-${state}`} className="flex items-center gap-[0.35em] whitespace-nowrap">
              <span aria-hidden className={`inline-block size-[0.8em] rounded-sm ${STATE_SWATCHES[state]}`} />
              <span className="text-zinc-200">{GPU_STATE_LABELS[state]}</span>
              <span className="font-bold tabular-nums">{summary.counts.byState[state]}</span>
            </li>
          ))}
        </ul>
      )}

      <div className="flex min-w-0 items-center gap-[1em] overflow-hidden whitespace-nowrap">
        {simulated && (
          <span data-testid="display-simulated" className="rounded-sm border-2 border-amber-400 px-[0.4em] font-bold tracking-wide text-amber-300 uppercase">
            Simulated fleet
          </span>
        )}
        {openAlerts !== null && (
          <span data-testid="display-alerts" className={`font-semibold ${openAlerts > 0 ? "text-red-300" : "text-zinc-200"}`}>
            Open alerts <span className="font-bold text-white tabular-nums">{openAlerts}</span>
          </span>
        )}
        <span data-testid="display-updated" className="tabular-nums text-zinc-200">
          Updated <span className="font-bold text-white">{lastUpdateLabel ?? "—"}</span>
        </span>
        {pageCount > 1 && (
          <span data-testid="display-page" className="flex items-center gap-[0.4em] font-semibold tabular-nums">
            Page {page + 1} / {pageCount}
            <span aria-hidden className="flex gap-[0.25em]">
              {Array.from({ length: pageCount }, (_, i) => (
                <span key={i} className={`inline-block size-[0.55em] rounded-full ${i === page ? "bg-white" : "bg-zinc-600"}`} />
              ))}
            </span>
          </span>
        )}
      </div>
    </header>
  );
}
