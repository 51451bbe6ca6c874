"use client";

import { Area, AreaChart, CartesianGrid, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import type { GpuChartRow, TimeAxis, ValueAxis } from "@/lib/live/gpu-series";
import { formatClockTime, formatClockTimeSeconds } from "@/lib/format/format";

type MetricKey = "util" | "memGiB" | "powerW" | "tempC";

export interface MetricChartProps {
  /** "Utilization": the figure is named "Utilization chart". */
  title: string;
  /** Shown in the axis label and the tooltip: "%", "GiB", "W", "°C". */
  unit: string;
  dataKey: MetricKey;
  /** A CSS colour, normally a theme variable such as `var(--chart-util)`. */
  color: string;
  rows: GpuChartRow[];
  axis: TimeAxis;
  /** Without one (no readings yet) recharts picks the range. */
  yAxis?: ValueAxis;
  /** A hardware bound drawn as a dashed line and named in the caption: total memory, power limit. */
  reference?: { value: number; label: string };
  /** Digits in the tooltip. */
  digits?: number;
  /** Text under the title, e.g. the current value. */
  summary?: string;
}

const AXIS_TICK = { fill: "var(--chart-axis)", fontSize: 12 };

/**
 * One metric over the last 15 minutes. It only draws: the rows, the time
 * window and the value range come prepared from `lib/live/gpu-series.ts`.
 * Animation is off because a new point arrives every second.
 */
export function MetricChart({ title, unit, dataKey, color, rows, axis, yAxis, reference, digits = 0, summary }: MetricChartProps) {
  const gradientId = `fill-${dataKey}`;
  const empty = rows.every((row) => row[dataKey] === null);
  const formatValue = (value: unknown) =>
    typeof value === "number" ? `${value.toFixed(digits)} ${unit}`.replace(" %", "%") : "—";

  return (
    <figure
      aria-label={`${title} chart`}
      className="min-w-0 rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900"
    >
      <figcaption className="mb-2 flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <span className="font-medium">{title}</span>
        {reference && (
          <span className="inline-flex items-center gap-1.5 text-xs text-slate-500 dark:text-slate-400">
            <span aria-hidden className="w-4 border-t-2 border-dashed border-(--chart-axis)" />
            {reference.label}
          </span>
        )}
        {summary && <span className="ml-auto text-sm text-slate-600 tabular-nums dark:text-slate-300">{summary}</span>}
      </figcaption>
      <div className="relative">
        {empty && (
          <p className="absolute inset-0 z-10 flex items-center justify-center text-sm text-slate-500 dark:text-slate-400">
            {rows.length === 0 ? "No readings yet" : "Not reported by this GPU"}
          </p>
        )}
        <AreaChart
          responsive
          data={rows}
          style={{ width: "100%", height: 200 }}
          margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
        >
          <defs>
            <linearGradient id={gradientId} x1="0" y1="0" x2="0" y2="1">
              <stop offset="0%" stopColor={color} stopOpacity={0.35} />
              <stop offset="100%" stopColor={color} stopOpacity={0.02} />
            </linearGradient>
          </defs>
          <CartesianGrid stroke="var(--chart-grid)" strokeDasharray="3 3" vertical={false} />
          <XAxis
            dataKey="t"
            type="number"
            scale="time"
            domain={axis.domain}
            ticks={axis.ticks}
            tickFormatter={(t: number) => formatClockTime(t)}
            tick={AXIS_TICK}
            stroke="var(--chart-grid)"
            allowDataOverflow
          />
          <YAxis
            domain={yAxis?.domain ?? ["auto", "auto"]}
            ticks={yAxis?.ticks}
            tick={AXIS_TICK}
            stroke="var(--chart-grid)"
            width={56}
            allowDecimals={false}
            label={{ value: unit, angle: -90, position: "insideLeft", offset: 12, fill: "var(--chart-axis)", fontSize: 12 }}
          />
          <Tooltip
            isAnimationActive={false}
            labelFormatter={(label) => (typeof label === "number" ? formatClockTimeSeconds(label) : "")}
            formatter={(value) => [formatValue(value), title]}
            contentStyle={{
              background: "var(--chart-tooltip-bg)",
              border: "1px solid var(--chart-tooltip-border)",
              borderRadius: 8,
              color: "var(--chart-tooltip-text)",
              fontSize: 13,
            }}
            labelStyle={{ color: "var(--chart-axis)" }}
            itemStyle={{ color: "var(--chart-tooltip-text)" }}
            cursor={{ stroke: "var(--chart-axis)", strokeDasharray: "3 3" }}
          />
          {reference && (
            <ReferenceLine
              y={reference.value}
              stroke="var(--chart-axis)"
              strokeDasharray="6 4"
              ifOverflow="extendDomain"
            />
          )}
          <Area
            type="linear"
            dataKey={dataKey}
            name={title}
            stroke={color}
            strokeWidth={1.75}
            fill={`url(#${gradientId})`}
            isAnimationActive={false}
            dot={false}
            activeDot={{ r: 3 }}
            connectNulls={false}
          />
        </AreaChart>
      </div>
    </figure>
  );
}
