import type { LiveGpu } from "@/lib/live/live";
import { formatPercent } from "@/lib/format/format";

/** nvidia-smi says "Enabled" when a GPU is split into MIG instances. */
export function isMig(gpu: Pick<LiveGpu, "migMode">): boolean {
  return gpu.migMode?.toLowerCase() === "enabled";
}

interface UtilizationValueProps {
  gpu: LiveGpu;
  /** Id of the visible "Utilization" <dt>, so that the value is found by its label. */
  labelledBy: string;
  className?: string;
}

/**
 * The utilization number, or "MIG": a GPU split into MIG instances reports
 * no whole-GPU utilization, and showing 0 % would call it idle.
 */
export function UtilizationValue({ gpu, labelledBy, className = "" }: UtilizationValueProps) {
  const mig = isMig(gpu);
  return (
    <dd
      aria-labelledby={labelledBy}
      data-testid="gpu-util"
      title={mig ? "MIG enabled: utilization is reported per instance" : undefined}
      className={className}
    >
      {mig ? "MIG" : formatPercent(gpu.utilizationGpuPct)}
    </dd>
  );
}
