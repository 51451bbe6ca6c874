"use client";

import { useEffect, useState } from "react";

/**
 * A limit that starts at `first` and grows by `step` once per task until it
 * reaches `total`: a page that mounts hundreds of cards at once (the fleet's
 * first snapshot) spends one long task doing it, during which the tab
 * answers nothing. Mounting a few cards per task keeps every task short and
 * draws what is above the fold first.
 */
export function useGrowingLimit(total: number, first: number, step: number): number {
  const [limit, setLimit] = useState(first);
  useEffect(() => {
    if (limit >= total) return;
    const timer = setTimeout(() => setLimit((held) => held + step), 0);
    return () => clearTimeout(timer);
  }, [limit, total, step]);
  return limit;
}
