"use client";

import { useEffect, useState } from "react";
import { afterFirstScreen } from "@/components/live/live-fleet-store";

/**
 * False until this page's first screen is live (components/live/live-fleet-store.ts,
 * `afterFirstScreen`); true from the first effect on pages without the live fleet.
 * For what may wait a moment: the header's links prefetch their pages only then.
 */
export function useFirstScreenLive(): boolean {
  const [live, setLive] = useState(false);
  useEffect(() => afterFirstScreen(() => setLive(true)), []);
  return live;
}
