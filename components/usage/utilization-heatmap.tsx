"use client";

import { formatAxisTime, formatBucket, formatPct, timeTicks } from "@/lib/format/usage-format";
import type { UsageRangeInfo, UtilizationHeatmap as HeatmapData } from "@/lib/domain/usage-types";
import { useMounted } from "@/components/usage/range-picker";

function heatClass(value: number): string {
  return `heat-${Math.max(0, Math.min(10, Math.round(value / 10)))}`;
}

/** A row's full name, for its tooltip: "sim-h100-mig · GPU 0:2 (1g.10gb)". */
function rowLabel(row: HeatmapData["rows"][number]): string {
  return `${row.hostName} · ${row.unit ?? row.gpuUuid.slice(0, 12)}`;
}

/**
 * The label beside a row: the host on its first row only, then the unit,
 * a slice indented under its GPU. "· not reported" on every slice row and
 * the host on every row made labels that took a phone's whole width; the
 * hatching, its legend and each row's tooltip say "not reported".
 */
function shortLabel(rows: HeatmapData["rows"], at: number): { host: string | null; unit: string; slice: boolean } {
  const row = rows[at]!;
  const unit = row.unit ?? row.gpuUuid.slice(0, 12);
  return { host: at === 0 || rows[at - 1]!.hostName !== row.hostName ? row.hostName : null, unit, slice: row.slice };
}

/**
 * Utilization by GPU (rows) and time (columns). One SVG rectangle per
 * cell with readings; a cell without readings stays the empty colour, so
 * an offline stretch reads as "no data", not as idle.
 */
export function UtilizationHeatmap({ heatmap, range }: { heatmap: HeatmapData; range: UsageRangeInfo }) {
  const mounted = useMounted();
  const columns = heatmap.columns.length;
  const rows = heatmap.rows.length;
  if (rows === 0 || columns === 0) {
    return <p className="py-10 text-center text-sm text-slate-500 dark:text-slate-400">No readings in this range</p>;
  }
  const startMs = heatmap.columns[0]!;
  const endMs = heatmap.columns[columns - 1]! + range.heatmapBucketMs;
  const span = endMs - startMs;
  const rowHeight = rows > 32 ? 12 : 18;
  // A label centred on the last few percent would hang past the edge.
  const ticks = mounted ? timeTicks(startMs, endMs, 8).filter((tick) => (tick - startMs) / span < 0.97) : [];

  return (
    <div>
      <div className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-2">
        <ul className="max-w-[55vw] text-right text-[11px] leading-none text-slate-600 sm:max-w-none dark:text-slate-400" aria-hidden>
          {heatmap.rows.map((row, at) => {
            const label = shortLabel(heatmap.rows, at);
            return (
              <li key={row.gpuUuid} style={{ height: rowHeight }} title={rowLabel(row)} className="flex items-center justify-end gap-1.5 whitespace-nowrap">
                {label.host && <span className="min-w-0 truncate font-medium text-slate-700 dark:text-slate-300">{label.host}</span>}
                <span className={label.slice ? "pl-3" : undefined}>{label.unit}</span>
              </li>
            );
          })}
        </ul>
        <svg
          role="img"
          aria-label={`Utilization of ${rows} GPUs in ${columns} columns of ${formatBucketLabel(range.heatmapBucketMs)}`}
          viewBox={`0 0 ${columns} ${rows}`}
          preserveAspectRatio="none"
          className="w-full"
          style={{ height: rows * rowHeight, background: "var(--heat-empty)" }}
        >
          <defs>
            {/* Stripes a column wide, every other column: unlike any utilization colour, and unlike "no readings". */}
            <pattern id="heat-unreported" width={2} height={1} patternUnits="userSpaceOnUse">
              <rect width={1} height={1} style={{ fill: "var(--heat-low)" }} opacity={0.5} />
            </pattern>
          </defs>
          {/* Cells are drawn in the browser only: thousands of rectangles would triple the page's HTML. */}
          {/* A MIG slice has no utilization to draw: its row is hatched "not reported", never 0 %. */}
          {heatmap.rows.map((row, y) =>
            row.utilizationReported ? null : (
              <rect key={`unreported-${y}`} x={0} y={y} width={columns} height={1} fill="url(#heat-unreported)">
                <title>{`${rowLabel(row)}: nvidia-smi reports no utilization per MIG slice`}</title>
              </rect>
            ),
          )}
          {mounted &&
            heatmap.rows.map((row, y) =>
              row.cells.map((value, x) =>
                value === null ? null : (
                  <rect key={`${y}-${x}`} x={x} y={y} width={1} height={1} className={heatClass(value)} shapeRendering="crispEdges">
                    <title>{`${rowLabel(row)}, ${formatBucket(heatmap.columns[x]!, range.heatmapBucketMs)}: ${formatPct(value)}`}</title>
                  </rect>
                ),
              ),
            )}
        </svg>
        <span aria-hidden />
        <div className="relative mt-1 h-4 text-[11px] text-slate-500 dark:text-slate-400" aria-hidden>
          {ticks.map((tick) => (
            <span key={tick} className="absolute -translate-x-1/2 whitespace-nowrap" style={{ left: `${((tick - startMs) / span) * 100}%` }}>
              {formatAxisTime(tick, span)}
            </span>
          ))}
        </div>
      </div>
      <div className="mt-3 flex items-center gap-2 text-xs text-slate-500 dark:text-slate-400">
        <span>0%</span>
        <span className="h-2.5 w-32 rounded-sm" style={{ background: "linear-gradient(to right, var(--heat-low), var(--heat-high))" }} aria-hidden />
        <span>100%</span>
        <span className="ml-3 inline-block h-2.5 w-4 rounded-sm" style={{ background: "var(--heat-empty)" }} aria-hidden />
        <span>no readings</span>
        {heatmap.rows.some((row) => !row.utilizationReported) && (
          <>
            <svg className="ml-3 h-2.5 w-4" viewBox="0 0 4 1" preserveAspectRatio="none" aria-hidden>
              <rect width={4} height={1} style={{ fill: "var(--heat-empty)" }} />
              <rect width={4} height={1} fill="url(#heat-unreported)" />
            </svg>
            <span>not reported (MIG slice: nvidia-smi gives no utilization per slice)</span>
          </>
        )}
      </div>
    </div>
  );
}

function formatBucketLabel(bucketMs: number): string {
  const minutes = bucketMs / 60_000;
  return minutes < 60 ? `${minutes} minutes` : `${minutes / 60} hour${minutes === 60 ? "" : "s"}`;
}
