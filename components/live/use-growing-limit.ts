"use client";

import { useEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";

/**
 * How many items the next task may mount: as many as fit in `budgetMs` at
 * the pace the last task measured, at least one, and at most four times the
 * last step, so that one task measured short by chance (a warm cache, a
 * cheap host) does not bring a long one.
 */
export function nextStep(lastStep: number, lastMs: number, budgetMs: number): number {
  const most = lastStep * 4;
  if (!(lastMs > 0)) return most;
  return Math.max(1, Math.min(most, Math.floor((lastStep * budgetMs) / lastMs)));
}

/**
 * The limit after the next task: `step` more, carried on to the end of the
 * group it lands in (`groupEnds`, ascending: where each group, such as a
 * host's GPUs, ends), since a group is mounted whole as soon as the limit
 * enters it. Without that, a slow machine that measured a step of one went
 * through a host of eight in eight tasks, seven of which mounted nothing and
 * still drew the page again.
 */
export function nextLimit(limit: number, step: number, total: number, groupEnds: readonly number[] = []): number {
  const wanted = Math.min(total, limit + step);
  return Math.min(total, groupEnds.find((end) => end >= wanted) ?? wanted);
}

/**
 * A limit that starts at `first` and grows once per task until it reaches
 * `total`, each task mounting as many more as fit in about `budgetMs`: a
 * page that mounts hundreds of cards at once (the fleet's first snapshot)
 * spends one long task doing it, during which the tab answers nothing, and a
 * fixed count per task is a long task on a machine a few times slower. Each
 * step is rendered and committed at once (flushSync) inside its own task, so
 * that its time is measured and the next step sized by it; the browser
 * paints and answers input between steps. What is above the fold comes first.
 */
export function useGrowingLimit(total: number, first: number, budgetMs: number, groupEnds: readonly number[] = []): number {
  const [limit, setLimit] = useState(first);
  const step = useRef(first);
  const ends = useRef(groupEnds);
  useEffect(() => {
    ends.current = groupEnds;
  });
  useEffect(() => {
    if (limit >= total) return;
    const timer = setTimeout(() => {
      const next = nextLimit(limit, step.current, total, ends.current);
      const start = performance.now();
      flushSync(() => setLimit(next));
      step.current = nextStep(next - limit, performance.now() - start, budgetMs);
    }, 0);
    return () => clearTimeout(timer);
  }, [limit, total, budgetMs]);
  return limit;
}
