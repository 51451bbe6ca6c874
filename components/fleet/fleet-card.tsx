"use client";

import { useRef, useState } from "react";
import type { GpuPoint, LiveGpu } from "@/lib/live";
import { useContentSkipped } from "@/lib/use-content-skipped";
import { offscreenRefreshDue, readingsOnlyChanged, type GpuCardProps } from "@/components/gpu/card-props";
import { GpuCard } from "@/components/gpu/gpu-card";

interface Shown {
  gpu: LiveGpu;
  sparkline: GpuPoint[];
}

/**
 * The readings a card shows. On screen, the latest. Off screen (the browser
 * skips the card's rendering), new readings are taken once every few
 * seconds, in the card's own second (`phase`): at 256 GPUs nearly every card
 * is off screen, and drawing each of them anew every second was most of the
 * page's main-thread time. A change other than readings (a process came or
 * went, an error) is taken at once, so that states, counts and process rows
 * stay true for find-in-page and assistive technology; a card coming into
 * view takes the latest before it is painted (the browser unskips it ahead
 * of the viewport).
 */
function useShownReadings(gpu: LiveGpu, sparkline: GpuPoint[], skipped: boolean, phase: number): Shown {
  const [held, setHeld] = useState<Shown>({ gpu, sparkline });
  if (held.gpu === gpu && held.sparkline === sparkline) return held;
  const take =
    !skipped || !readingsOnlyChanged(held.gpu, gpu) || offscreenRefreshDue(Date.parse(held.gpu.sampledAt), Date.parse(gpu.sampledAt), phase);
  if (!take) return held;
  const next = { gpu, sparkline };
  setHeld(next);
  return next;
}

/** One GPU of the fleet view: its list item, and its card with the readings it should show now. */
export function FleetCard({ phase, gpu, sparkline, ...rest }: GpuCardProps & { phase: number }) {
  const ref = useRef<HTMLLIElement>(null);
  const skipped = useContentSkipped(ref);
  const shown = useShownReadings(gpu, sparkline, skipped, phase);
  return (
    <li ref={ref} className="min-w-0">
      <GpuCard gpu={shown.gpu} sparkline={shown.sparkline} {...rest} />
    </li>
  );
}
