"use client";

import { useEffect, useSyncExternalStore } from "react";
import type { LiveFleetState } from "@/lib/live/live-fleet-state";
import {
  getFleetState,
  getServerFleetState,
  reconnectLiveFleet,
  seedFleetState,
  retainLiveFleet,
  subscribeFleet,
} from "@/components/live/live-fleet-store";

export interface LiveFleet extends LiveFleetState {
  /** Asks the socket to connect again after the server dropped it for good. */
  reconnect: () => void;
}

/**
 * The live fleet: the last snapshot merged with every delta since, the
 * connection status and the time of the last update. Every component that
 * calls it shares one socket and one state. `embedded`: the state of a
 * snapshot the page embedded (embeddedFleetState, app/page.tsx): the server
 * renders it, and the browser's store starts from it until the socket's own snapshot comes.
 */
export function useLiveFleet(embedded: LiveFleetState | null = null): LiveFleet {
  // Only the browser's store is seeded: the server's module is everyone's.
  if (embedded && typeof window !== "undefined") seedFleetState(embedded);
  useEffect(() => retainLiveFleet(), []);
  const state = useSyncExternalStore(subscribeFleet, getFleetState, embedded ? () => embedded : getServerFleetState);
  return { ...state, reconnect: reconnectLiveFleet };
}
