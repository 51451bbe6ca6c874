"use client";

import { createContext, useContext } from "react";
import type { GpuReconciliation } from "@/lib/domain/attribution";
import type { LiveFleetState } from "@/lib/live/live-fleet-state";

/** A snapshot the page embedded (app/page.tsx), as the fleet view's components read it until the socket's comes. */
export interface EmbeddedFleet {
  state: LiveFleetState;
  gpuStates: Record<string, GpuReconciliation>;
}

/**
 * The embedded snapshot for the components under the fleet view: on the
 * server they cannot read the browser's store (the server's module is
 * everyone's), and at hydration they must draw what the server drew.
 */
export const EmbeddedFleetContext = createContext<EmbeddedFleet | null>(null);

export function useEmbeddedFleet(): EmbeddedFleet | null {
  return useContext(EmbeddedFleetContext);
}
