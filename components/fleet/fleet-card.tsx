"use client";

import { memo, startTransition, useEffect, useLayoutEffect, useRef, useState } from "react";
import type { GpuPoint, LiveGpu } from "@/lib/live/live";
import { getGpuReadings, subscribeGpu } from "@/components/live/live-fleet-store";
import { useContentSkipped } from "@/components/live/use-content-skipped";
import { offscreenRefreshDue, readingsOnlyChanged, sameCardContext, type CardContext } from "@/components/gpu/card-props";
import { GpuCard } from "@/components/gpu/gpu-card";

/** One empty history for every GPU without one, so that its memoized card sees the same sparkline each second. */
const NO_POINTS: GpuPoint[] = [];

interface Shown {
  gpu: LiveGpu;
  sparkline: GpuPoint[];
}

function latestOf(uuid: string): Shown | null {
  const { gpu, sparkline } = getGpuReadings(uuid);
  return gpu ? { gpu, sparkline: sparkline ?? NO_POINTS } : null;
}

function sameShown(a: Shown | null, b: Shown | null): boolean {
  return a === b || (a !== null && b !== null && a.gpu === b.gpu && a.sparkline === b.sparkline);
}

/**
 * The readings a card shows, taken from the store by the card itself: a
 * delta draws the cards whose GPU it changed, not the page. On screen, the
 * latest, at once. Off screen (the browser skips the card's rendering), new
 * readings are taken once every few seconds, in the card's own second
 * (`phase`), as a transition that React renders in slices between other
 * tasks: at 256 GPUs nearly every card is off screen, and drawing each of
 * them anew every second was most of the page's main-thread time. A change
 * other than readings (a process came or went, an error) is taken at once,
 * so that states, counts and process rows stay true for find-in-page and
 * assistive technology; a card coming into view takes the latest before it
 * is painted (the browser unskips it ahead of the viewport).
 */
export function useShownReadings(uuid: string, skipped: boolean, phase: number): Shown | null {
  const [held, setHeld] = useState<Shown | null>(() => latestOf(uuid));
  const heldRef = useRef(held);
  const skippedRef = useRef(skipped);
  useLayoutEffect(() => {
    heldRef.current = held;
    skippedRef.current = skipped;
  });
  useEffect(
    () =>
      subscribeGpu(uuid, () => {
        const next = latestOf(uuid);
        const current = heldRef.current;
        if (sameShown(current, next)) return;
        if (!current || !next || !skippedRef.current || !readingsOnlyChanged(current.gpu, next.gpu)) setHeld(next);
        else if (offscreenRefreshDue(Date.parse(current.gpu.sampledAt), Date.parse(next.gpu.sampledAt), phase)) startTransition(() => setHeld(next));
      }),
    [uuid, phase],
  );
  if (skipped) return held;
  const latest = latestOf(uuid);
  if (sameShown(held, latest)) return held;
  setHeld(latest);
  return latest;
}

interface FleetCardProps extends CardContext {
  uuid: string;
  /** The card's place on the page: off-screen cards take new readings in turns by it. */
  phase: number;
}

/**
 * One GPU of the fleet view: its list item, and its card with the readings
 * it should show now. Drawn again by the page only when what the page gives
 * it changed (sameCardContext); its readings come from its own subscription.
 */
export const FleetCard = memo(
  function FleetCard({ uuid, phase, ...context }: FleetCardProps) {
    const ref = useRef<HTMLLIElement>(null);
    const skipped = useContentSkipped(ref);
    const shown = useShownReadings(uuid, skipped, phase);
    if (!shown) return null;
    return (
      <li ref={ref} className="min-w-0">
        <GpuCard gpu={shown.gpu} sparkline={shown.sparkline} {...context} />
      </li>
    );
  },
  (prev, next) => prev.uuid === next.uuid && prev.phase === next.phase && prev.people === next.people && sameCardContext(prev, next),
);
