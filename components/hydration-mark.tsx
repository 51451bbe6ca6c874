"use client";

import { useEffect } from "react";

/**
 * Marks the page as hydrated (`<html data-hydrated>`) once React runs its
 * scripts. A form typed into before then loses what was typed when React
 * takes it over, and a click before then is lost: end-to-end tests wait
 * for the mark (e2e/helpers.ts `hydrated`) before they type or click on a
 * machine too loaded to hydrate at once.
 */
export function HydrationMark() {
  useEffect(() => {
    document.documentElement.dataset.hydrated = "";
  }, []);
  return null;
}
