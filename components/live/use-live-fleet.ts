"use client";

import { useEffect, useSyncExternalStore } from "react";
import type { LiveFleetState } from "@/lib/live/live-fleet-state";
import {
  getFleetState,
  getServerFleetState,
  reconnectLiveFleet,
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
 * calls it shares one socket and one state.
 */
export function useLiveFleet(): LiveFleet {
  useEffect(() => retainLiveFleet(), []);
  const state = useSyncExternalStore(subscribeFleet, getFleetState, getServerFleetState);
  return { ...state, reconnect: reconnectLiveFleet };
}
