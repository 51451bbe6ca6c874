"use client";

import { MetricChart } from "@/components/charts/metric-chart";
import type { ChartScales, GpuChartRow, TimeAxis } from "@/lib/live/gpu-series";
import { formatGiB, formatMemoryUsage, formatPercent, formatPower, formatTemperature, formatWatts } from "@/lib/format/format";
import type { LiveGpu } from "@/lib/live/live";

interface GpuChartsProps {
  rows: GpuChartRow[];
  axis: TimeAxis;
  scales: ChartScales;
  /** Current values for the captions; null while the GPU is unknown. */
  gpu: LiveGpu | null;
  mig: boolean;
}

export function GpuCharts({ rows, axis, scales, gpu, mig }: GpuChartsProps) {
  const { util, memGiB, powerW, tempC } = scales;
  return (
    <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
      <MetricChart
        title="Utilization"
        unit="%"
        dataKey="util"
        color="var(--chart-util)"
        rows={rows}
        axis={axis}
        yAxis={util}
        summary={mig ? "MIG: per instance" : formatPercent(gpu?.utilizationGpuPct)}
      />
      <MetricChart
        title="Memory"
        unit="GiB"
        dataKey="memGiB"
        color="var(--chart-mem)"
        rows={rows}
        axis={axis}
        yAxis={memGiB}
        digits={1}
        reference={memGiB.totalGiB === null ? undefined : { value: memGiB.totalGiB, label: `total ${formatGiB(gpu?.memoryTotalMiB)}` }}
        summary={gpu ? formatMemoryUsage(gpu.memoryUsedMiB, gpu.memoryTotalMiB) : undefined}
      />
      <MetricChart
        title="Power"
        unit="W"
        dataKey="powerW"
        color="var(--chart-power)"
        rows={rows}
        axis={axis}
        yAxis={powerW}
        reference={powerW.limitW === null ? undefined : { value: powerW.limitW, label: `limit ${formatWatts(powerW.limitW)}` }}
        summary={gpu ? formatPower(gpu.powerDrawW, gpu.powerLimitW) : undefined}
      />
      <MetricChart
        title="Temperature"
        unit="°C"
        dataKey="tempC"
        color="var(--chart-temp)"
        rows={rows}
        axis={axis}
        yAxis={tempC}
        summary={gpu ? formatTemperature(gpu.temperatureC) : undefined}
      />
    </div>
  );
}
