"use client";

import "./usage.css";
import { useEffect, useMemo, useState } from "react";
import { Area, CartesianGrid, ComposedChart, Line, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import { rangeSearch, type RangeChoice } from "@/lib/domain/usage-range";
import { formatAxisTime, formatBucket, formatBucketWidth, timeTicks } from "@/lib/format/usage-format";
import type { GpuUsageHistory } from "@/lib/domain/usage-types";
import { RangePicker, type RangeChange } from "@/components/usage/range-picker";
import { AXIS_TICK, TOOLTIP_STYLE } from "@/components/usage/utilization-chart";

type Row = { t: number; avg: number | null; max: number | null };

interface Panel {
  title: string;
  unit: string;
  color: string;
  digits: number;
  rows: Row[];
  /** Hardware bound, dashed. */
  reference?: { value: number; label: string };
  domain?: [number, number];
}

function HistoryChart({ panel, domain, bucketMs }: { panel: Panel; domain: [number, number]; bucketMs: number }) {
  const span = domain[1] - domain[0];
  const ticks = timeTicks(domain[0], domain[1], 8);
  const empty = panel.rows.every((row) => row.avg === null);
  const hasPeak = panel.rows.some((row) => row.max !== null);
  const value = (v: unknown) => (typeof v === "number" ? `${v.toFixed(panel.digits)} ${panel.unit}`.replace(" %", "%") : "—");
  return (
    <figure aria-label={`${panel.title} history`} className="m-0 min-w-0 rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
      <figcaption className="mb-2 flex flex-wrap items-baseline gap-x-3 text-sm">
        <span className="font-medium">{panel.title}</span>
        <span className="inline-flex items-center gap-1.5 text-xs text-slate-500 dark:text-slate-400">
          <span aria-hidden className="w-4 border-t-2" style={{ borderColor: panel.color }} /> mean
          {hasPeak && (
            <>
              <span aria-hidden className="ml-2 w-4 border-t-2 border-dotted" style={{ borderColor: panel.color }} /> peak
            </>
          )}
          {panel.reference && (
            <>
              <span aria-hidden className="ml-2 w-4 border-t-2 border-dashed border-(--chart-axis)" /> {panel.reference.label}
            </>
          )}
        </span>
      </figcaption>
      <div className="relative">
        {empty && (
          <p className="absolute inset-0 z-10 flex items-center justify-center text-sm text-slate-500 dark:text-slate-400">No readings in this range</p>
        )}
        <ComposedChart responsive data={panel.rows} style={{ width: "100%", height: 190 }} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
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
            domain={panel.domain ?? [0, "auto"]}
            tick={AXIS_TICK}
            stroke="var(--chart-grid)"
            width={56}
            allowDecimals={false}
            label={{ value: panel.unit, angle: -90, position: "insideLeft", offset: 12, fill: "var(--chart-axis)", fontSize: 12 }}
          />
          <Tooltip
            isAnimationActive={false}
            {...TOOLTIP_STYLE}
            labelFormatter={(label) => (typeof label === "number" ? formatBucket(label, bucketMs) : "")}
            formatter={(v, name) => [value(v), name]}
            cursor={{ stroke: "var(--chart-axis)", strokeDasharray: "3 3" }}
          />
          {panel.reference && <ReferenceLine y={panel.reference.value} stroke="var(--chart-axis)" strokeDasharray="6 4" ifOverflow="extendDomain" />}
          <Area
            type="linear"
            dataKey="avg"
            name="Mean"
            stroke={panel.color}
            fill={panel.color}
            fillOpacity={0.25}
            strokeWidth={1.5}
            isAnimationActive={false}
            dot={false}
            connectNulls={false}
          />
          {hasPeak && <Line type="linear" dataKey="max" name="Peak" stroke={panel.color} strokeDasharray="2 3" strokeWidth={1.25} dot={false} isAnimationActive={false} connectNulls={false} />}
        </ComposedChart>
      </div>
    </figure>
  );
}

type State =
  | { status: "loading"; history: GpuUsageHistory | null }
  | { status: "ready"; history: GpuUsageHistory }
  | { status: "error"; message: string; history: GpuUsageHistory | null };

const GIB = 1024;

/**
 * A GPU's history beyond the live 15 minutes, from the usage rollups, with
 * the same range picker as the usage page. For the GPU detail page.
 */
export function GpuUsageHistory({ uuid }: { uuid: string }) {
  const [choice, setChoice] = useState<RangeChange>({ choice: "24h" });
  const [state, setState] = useState<State>({ status: "loading", history: null });

  useEffect(() => {
    const controller = new AbortController();
    setState((previous) => ({ status: "loading", history: previous.history }));
    fetch(`/api/v1/gpus/${encodeURIComponent(uuid)}/history?${rangeSearch(choice)}`, { signal: controller.signal, cache: "no-store" })
      .then(async (response) => {
        const body: unknown = await response.json();
        if (!response.ok) {
          const message = (body as { error?: { message?: string } }).error?.message ?? `HTTP ${response.status}`;
          setState((previous) => ({ status: "error", message, history: previous.history }));
          return;
        }
        setState({ status: "ready", history: body as GpuUsageHistory });
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        setState((previous) => ({ status: "error", message: error instanceof Error ? error.message : String(error), history: previous.history }));
      });
    return () => controller.abort();
  }, [uuid, choice]);

  const history = state.history;
  const panels = useMemo<Panel[]>(() => {
    const points = history?.points ?? [];
    const memTotal = points.reduce<number | null>((max, p) => (p.memTotalMiB !== null && (max === null || p.memTotalMiB > max) ? p.memTotalMiB : max), null);
    const gib = (v: number | null) => (v === null ? null : v / GIB);
    return [
      { title: "Utilization", unit: "%", color: "var(--chart-util)", digits: 0, domain: [0, 100], rows: points.map((p) => ({ t: p.t, avg: p.utilAvg, max: p.utilMax })) },
      {
        title: "Memory",
        unit: "GiB",
        color: "var(--chart-mem)",
        digits: 1,
        reference: memTotal === null ? undefined : { value: memTotal / GIB, label: `total ${(memTotal / GIB).toFixed(0)} GiB` },
        rows: points.map((p) => ({ t: p.t, avg: gib(p.memUsedAvgMiB), max: gib(p.memUsedMaxMiB) })),
      },
      { title: "Power", unit: "W", color: "var(--chart-power)", digits: 0, rows: points.map((p) => ({ t: p.t, avg: p.powerAvgW, max: null })) },
      { title: "Temperature", unit: "°C", color: "var(--chart-temp)", digits: 0, rows: points.map((p) => ({ t: p.t, avg: p.tempAvgC, max: p.tempMaxC })) },
    ];
  }, [history]);

  const range = history?.range;
  // The picker shows what was asked for at once; the times come with the answer.
  const value = { choice: choice.choice as RangeChoice, fromMs: range?.fromMs ?? 0, toMs: range?.toMs ?? 0 };
  const domain: [number, number] = range ? [history.points[0]?.t ?? range.fromMs, range.toMs] : [0, 1];

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <RangePicker value={value} onChange={setChoice} pending={state.status === "loading"} />
        <p className="text-xs text-slate-500 dark:text-slate-400" aria-live="polite">
          {state.status === "loading" && "Loading history… "}
          {state.status === "error" && `History unavailable: ${state.message}`}
          {state.status === "ready" && range && `Points of ${formatBucketWidth(range.bucketMs)} from ${range.source === "minute" ? "minute" : "hourly"} rollups`}
        </p>
      </div>
      {history && range && (
        <div className={`grid grid-cols-1 gap-4 lg:grid-cols-2 ${state.status === "loading" ? "opacity-60" : ""}`}>
          {panels.map((panel) => (
            <HistoryChart key={panel.title} panel={panel} domain={domain} bucketMs={range.bucketMs} />
          ))}
        </div>
      )}
    </div>
  );
}
