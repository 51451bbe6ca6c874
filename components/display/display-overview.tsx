"use client";

import { useLayoutEffect, useRef, useState } from "react";
import { GPU_STATES, GPU_STATE_LABELS, unitNameOfRef, type GpuState } from "@/lib/domain/gpu-availability";
import type { DisplaySummary, DisplayTile, DisplayFeedHost } from "@/lib/live/display-state";
import { overviewGroups, OVERVIEW_LABEL_LINE, planOverview } from "@/lib/live/fleet-overview";
import { STATE_SWATCHES } from "@/components/ui/gpu-state-colours";

interface DisplayOverviewProps {
  hosts: DisplayFeedHost[];
  tilesByHost: Map<string, DisplayTile[]>;
  summary: DisplaySummary;
  /** The space below the summary strip, CSS px. */
  width: number;
  height: number;
  scale: number;
}

/** The legend's type at scale 1; the cells get the height it leaves. */
const LEGEND_PX = 22;
const LEGEND_LINE = 1.6;
const LEGEND_GAP = 12;

/**
 * The wall's `?layout=overview`: every unit of the fleet as one cell in its
 * state's colour, grouped by host, under a legend, on one screen however
 * large the fleet (lib/live/fleet-overview.ts picks the largest cells that fit).
 * The fleet page's overview shows the same units in the same colours.
 */
export function DisplayOverview({ hosts, tilesByHost, summary, width, height, scale }: DisplayOverviewProps) {
  const legendPx = LEGEND_PX * scale;
  // One line on a wall; on a narrow screen the legend wraps, and the cells get what its lines leave (measured).
  const legend = useRef<HTMLUListElement>(null);
  const [legendHeight, setLegendHeight] = useState(Math.ceil(legendPx * LEGEND_LINE));
  useLayoutEffect(() => {
    const measured = Math.ceil(legend.current?.getBoundingClientRect().height ?? 0);
    if (measured > 0 && measured !== legendHeight) setLegendHeight(measured);
  });
  const legendGap = LEGEND_GAP * scale;
  const groups = overviewGroups(hosts, (host) => (tilesByHost.get(host.id) ?? []).map((tile) => ({ unit: tile, state: tile.state, split: tile.state === "partitioned" })));
  const plan = planOverview(
    groups.map((group) => ({ count: group.units.length, labelChars: group.host.name.length })),
    { width, height: Math.max(0, height - legendHeight - legendGap) },
    { scale },
  );
  // Every state a unit can be in here; a split GPU is never a cell.
  const legendStates = GPU_STATES.filter((state): state is GpuState => state !== "partitioned");

  return (
    <div data-testid="display-overview" data-cell={plan.cell} data-fits={plan.fits} className="flex min-h-0 flex-1 flex-col" style={{ gap: legendGap }}>
      <ul ref={legend} data-testid="display-overview-legend" aria-label="Colours by state" className="flex shrink-0 flex-wrap items-center gap-x-[1.4em]" style={{ fontSize: legendPx, lineHeight: LEGEND_LINE }}>
        {legendStates.map((state) => (
          <li key={state} className="flex items-center gap-[0.4em] whitespace-nowrap">
            <span aria-hidden className={`inline-block size-[0.9em] rounded-sm ${STATE_SWATCHES[state]}`} />
            <span className="text-zinc-200">{GPU_STATE_LABELS[state]}</span>
            <span className="font-bold tabular-nums">{summary.counts.byState[state]}</span>
          </li>
        ))}
      </ul>
      <div className="flex min-h-0 flex-1 flex-col self-center overflow-hidden" style={{ gap: plan.groupGapY }}>
        {plan.rows.map((row, rowIndex) => (
          <div key={rowIndex} className="flex items-start" style={{ gap: plan.groupGapX }}>
            {row.map((index) => {
              const { host, units } = groups[index];
              return (
                <section key={host.id} aria-label={`Host ${host.name}`} data-testid="display-overview-host" className="flex shrink-0 flex-col" style={{ width: plan.groupWidths[index], gap: plan.labelGap }}>
                  <p
                    data-testid="display-overview-label"
                    className={`font-bold whitespace-nowrap ${host.online ? "text-white" : "text-zinc-400 line-through"}`}
                    style={{ fontSize: plan.labelPx, lineHeight: OVERVIEW_LABEL_LINE }}
                  >
                    {host.name}
                    {!host.online && <span className="sr-only"> (offline)</span>}
                  </p>
                  <ul role="list" className="grid" style={{ gridTemplateColumns: `repeat(${plan.columns}, ${plan.cell}px)`, gridAutoRows: `${plan.cell}px`, gap: plan.cellGap }}>
                    {units.map(({ unit, state }) => (
                      <li
                        key={unit.uuid}
                        data-testid="display-overview-cell"
                        data-state={state}
                        aria-label={`${host.name} ${unitNameOfRef(unit.index, unit.slice)}: ${GPU_STATE_LABELS[state]}`}
                        className={`rounded-[12%] ${STATE_SWATCHES[state]}`}
                      />
                    ))}
                  </ul>
                </section>
              );
            })}
          </div>
        ))}
      </div>
    </div>
  );
}
