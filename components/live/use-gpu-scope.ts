"use client";

import { useEffect, useState } from "react";
import { followGpuScope } from "@/components/live/gpu-scope-feed";
import { initialGpuScopeState, type GpuScopeState } from "@/lib/live/gpu-scope-state";
import { getLiveSocket } from "@/components/live/live-socket";

export interface GpuScope extends GpuScopeState {
  /** Asks the socket to connect again after the server dropped it for good. */
  reconnect: () => void;
}

/**
 * One GPU as the GPU page shows it, from the GPU scope of `/live`
 * (components/live/gpu-scope-feed.ts: watched on every (re)connect, unwatched on
 * leaving). It keeps the tab's socket open without the whole fleet's feed.
 */
export function useGpuScope(uuid: string): GpuScope {
  const [state, setState] = useState<GpuScopeState>(() => initialGpuScopeState(uuid));
  useEffect(() => followGpuScope(uuid, setState), [uuid]);
  // Another GPU in the same page: it shows as loading until its own scope speaks, not as the GPU before.
  const shown = state.uuid === uuid ? state : initialGpuScopeState(uuid);
  return { ...shown, reconnect: reconnectGpuScope };
}

function reconnectGpuScope(): void {
  const socket = getLiveSocket();
  if (!socket.connected) socket.connect();
}
