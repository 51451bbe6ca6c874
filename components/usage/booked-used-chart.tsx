"use client";

import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from "recharts";
import { formatGpuHours, niceTicks } from "@/lib/format/usage-format";
import type { PersonUsage } from "@/lib/domain/usage-types";
import { AXIS_TICK, TOOLTIP_STYLE } from "@/components/usage/utilization-chart";

const BAR_ORDER = ["booked", "used", "idle"];

/**
 * Per person: GPU-hours booked, GPU-hours of that really used
 * (utilization-weighted), and booked time spent idle. The "Not booked" row
 * has use only: use without a booking (busy hours on GPUs that nobody had
 * booked), the "Used without a booking" card's figure.
 */
export function BookedUsedChart({ people }: { people: PersonUsage[] }) {
  if (people.length === 0) {
    return <p className="py-10 text-center text-sm text-slate-500 dark:text-slate-400">No GPU time in this range</p>;
  }
  const rows = people.map((person) => ({
    label: person.label,
    booked: person.bookedGpuHours,
    used: person.usedGpuHours,
    idle: person.idleBookedGpuHours,
  }));
  const longest = Math.max(...rows.map((row) => row.label.length));
  const ticks = niceTicks(Math.max(...rows.flatMap((row) => [row.booked, row.used, row.idle])));
  return (
    <BarChart
      responsive
      layout="vertical"
      data={rows}
      style={{ width: "100%", height: Math.max(160, rows.length * 44 + 70) }}
      margin={{ top: 4, right: 16, bottom: 4, left: 4 }}
      barGap={1}
      barCategoryGap="22%"
    >
      <CartesianGrid stroke="var(--chart-grid)" strokeDasharray="3 3" horizontal={false} />
      <XAxis
        type="number"
        domain={[0, ticks[ticks.length - 1]!]}
        ticks={ticks}
        tick={AXIS_TICK}
        stroke="var(--chart-grid)"
        tickFormatter={(value: number) => value.toLocaleString("en-US")}
        label={{ value: "GPU-hours", position: "insideBottomRight", offset: -2, fill: "var(--chart-axis)", fontSize: 12 }}
        height={40}
      />
      <YAxis type="category" dataKey="label" tick={AXIS_TICK} stroke="var(--chart-grid)" width={Math.min(180, Math.max(80, longest * 7 + 8))} />
      <Tooltip
        isAnimationActive={false}
        {...TOOLTIP_STYLE}
        formatter={(value, name) => [`${formatGpuHours(typeof value === "number" ? value : null)} GPU-h`, name]}
        cursor={{ fill: "var(--chart-grid)", fillOpacity: 0.4 }}
      />
      <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={(item) => BAR_ORDER.indexOf(String(item.dataKey))} />
      <Bar dataKey="booked" name="Booked" fill="var(--usage-booked)" isAnimationActive={false} />
      <Bar dataKey="used" name="Used" fill="var(--usage-used)" isAnimationActive={false} />
      <Bar dataKey="idle" name="Idle while booked" fill="var(--usage-idle)" isAnimationActive={false} />
    </BarChart>
  );
}
