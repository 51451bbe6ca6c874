import { useId } from "react";
import type { LiveGpu } from "@/lib/live/live";
import { DASH, formatGiB, formatPercent, formatPower, formatTemperature } from "@/lib/format/format";
import { MemoryBar } from "@/components/gpu/memory-bar";
import { temperatureTone } from "@/components/gpu/thresholds";
import { UtilizationValue } from "@/components/gpu/utilization-value";

/** The GPU's current readings as tiles, with the same test ids as the fleet cards. */
export function GpuLiveValues({ gpu, stale }: { gpu: LiveGpu; stale: boolean }) {
  const id = useId();
  const clock = gpu.smClockMHz === null ? DASH : `${Math.round(gpu.smClockMHz)} MHz`;

  return (
    <dl className={`grid grid-cols-2 gap-3 md:grid-cols-4 ${stale ? "opacity-75" : ""}`}>
      <Tile>
        <dt id={`${id}-util`} className={LABEL}>Utilization</dt>
        <UtilizationValue gpu={gpu} labelledBy={`${id}-util`} className={VALUE} />
        <dd className={NOTE}>Memory controller {formatPercent(gpu.utilizationMemoryPct)}</dd>
      </Tile>
      <Tile>
        <dt id={`${id}-mem`} className={LABEL}>Memory</dt>
        <dd aria-labelledby={`${id}-mem`} data-testid="gpu-memory" className={VALUE}>
          <span className="whitespace-nowrap">{formatGiB(gpu.memoryUsedMiB)}</span>
          <span className="text-sm font-normal whitespace-nowrap text-slate-500 sm:text-base dark:text-slate-400"> / {formatGiB(gpu.memoryTotalMiB)}</span>
        </dd>
        <dd className="mt-2">
          <MemoryBar usedMiB={gpu.memoryUsedMiB} totalMiB={gpu.memoryTotalMiB} stale={stale} />
        </dd>
      </Tile>
      <Tile>
        <dt id={`${id}-power`} className={LABEL}>Power</dt>
        <dd aria-labelledby={`${id}-power`} data-testid="gpu-power" className={VALUE}>
          {formatPower(gpu.powerDrawW, gpu.powerLimitW)}
        </dd>
        <dd className={NOTE}>
          {gpu.pstate ?? DASH} · SM {clock}
        </dd>
      </Tile>
      <Tile>
        <dt id={`${id}-temp`} className={LABEL}>Temperature</dt>
        <dd
          aria-labelledby={`${id}-temp`}
          data-testid="gpu-temperature"
          className={`${VALUE} ${stale ? "" : temperatureTone(gpu.temperatureC)}`}
        >
          {formatTemperature(gpu.temperatureC)}
        </dd>
        <dd className={NOTE}>Fan {formatPercent(gpu.fanSpeedPct)}</dd>
      </Tile>
    </dl>
  );
}

const LABEL = "text-xs text-slate-500 dark:text-slate-400";
const VALUE = "mt-1 text-xl font-semibold tabular-nums sm:text-2xl";
const NOTE = "mt-1 text-xs text-slate-500 dark:text-slate-400";

function Tile({ children }: { children: React.ReactNode }) {
  return (
    <div className="min-w-0 rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">{children}</div>
  );
}
