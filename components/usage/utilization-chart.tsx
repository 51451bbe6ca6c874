"use client";

import { Area, AreaChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from "recharts";
import { formatAxisTime, formatBucket, formatPct, timeTicks } from "@/lib/format/usage-format";
import { paletteFor } from "@/lib/palette";
import type { UsageRangeInfo, UtilizationSeries } from "@/lib/domain/usage-types";

export const AXIS_TICK = { fill: "var(--chart-axis)", fontSize: 12 };
export const TOOLTIP_STYLE = {
  contentStyle: {
    background: "var(--chart-tooltip-bg)",
    border: "1px solid var(--chart-tooltip-border)",
    borderRadius: 8,
    color: "var(--chart-tooltip-text)",
    fontSize: 13,
  },
  labelStyle: { color: "var(--chart-axis)" },
  itemStyle: { color: "var(--chart-tooltip-text)" },
} as const;


/**
 * Fleet utilization over time, one stacked layer per host or model: each
 * layer is its share of the fleet's mean, so the top edge is the fleet's
 * mean utilization. Buckets without readings are gaps.
 */
export function UtilizationChart({ series, range }: { series: UtilizationSeries; range: UsageRangeInfo }) {
  const domainStart = series.points[0]?.t ?? range.fromMs;
  const domain: [number, number] = [domainStart, range.toMs];
  const span = domain[1] - domain[0];
  const ticks = timeTicks(domain[0], domain[1], 8);
  const empty = series.groups.length === 0;
  // A layer's colour follows from what it is, so a host keeps its colour whatever else is in the range.
  const colourOf = paletteFor(series.groups.map((group) => group.id));

  return (
    <div className="relative">
      {empty && (
        <p className="absolute inset-0 z-10 flex items-center justify-center text-sm text-slate-500 dark:text-slate-400">
          No readings in this range
        </p>
      )}
      <AreaChart responsive data={series.points} style={{ width: "100%", height: 300 }} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
        <CartesianGrid stroke="var(--chart-grid)" strokeDasharray="3 3" vertical={false} />
        <XAxis
          dataKey="t"
          type="number"
          scale="time"
          domain={domain}
          ticks={ticks}
          tickFormatter={(t: number) => formatAxisTime(t, span)}
          tick={AXIS_TICK}
          stroke="var(--chart-grid)"
          allowDataOverflow
        />
        <YAxis
          domain={[0, 100]}
          ticks={[0, 25, 50, 75, 100]}
          tick={AXIS_TICK}
          stroke="var(--chart-grid)"
          width={56}
          label={{ value: "%", angle: -90, position: "insideLeft", offset: 12, fill: "var(--chart-axis)", fontSize: 12 }}
        />
        <Tooltip
          isAnimationActive={false}
          {...TOOLTIP_STYLE}
          labelFormatter={(label) => (typeof label === "number" ? formatBucket(label, range.bucketMs) : "")}
          formatter={(value, name) => [formatPct(typeof value === "number" ? value : null, 1), name]}
          cursor={{ stroke: "var(--chart-axis)", strokeDasharray: "3 3" }}
        />
        <Legend wrapperStyle={{ fontSize: 12, paddingTop: 4 }} />
        {series.groups.map((group) => (
          <Area
            key={group.key}
            type="linear"
            dataKey={group.key}
            name={group.label}
            stackId="fleet"
            stroke={colourOf(group.id).chart}
            fill={colourOf(group.id).chart}
            fillOpacity={0.55}
            strokeWidth={1.25}
            isAnimationActive={false}
            dot={false}
            connectNulls={false}
          />
        ))}
      </AreaChart>
    </div>
  );
}
