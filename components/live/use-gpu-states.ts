"use client";

import { useCallback, useSyncExternalStore } from "react";
import type { GpuReconciliation, GpuStatesAnswer } from "@/lib/domain/attribution";
import { subscribeFleetMessages } from "@/components/live/live-fleet-store";
import { getLiveSocket } from "@/components/live/live-socket";

/**
 * The GPU states (state, bookedBy, who runs and by what evidence) that ride
 * on the live fleet's snapshot and deltas. It listens to the tab's one
 * /live socket without opening it: the page's live fleet does that. A store
 * that starts listening after the snapshot went by asks for the states.
 */

let states: Record<string, GpuReconciliation> = {};
const listeners = new Set<() => void>();
let attached = false;

function publish(next: Record<string, GpuReconciliation>): void {
  states = next;
  for (const listener of listeners) listener();
}

function attach(): void {
  if (attached) return;
  attached = true;
  const socket = getLiveSocket();
  subscribeFleetMessages((message) => {
    if (message.kind === "snapshot") publish(message.snapshot.gpuStates ?? {});
    else if (message.delta.gpuStates && Object.keys(message.delta.gpuStates).length > 0) publish({ ...states, ...message.delta.gpuStates });
  });
  if (socket.connected) socket.emit("gpu:states", (answer: GpuStatesAnswer) => publish({ ...answer.states, ...states }));
}

function subscribe(listener: () => void): () => void {
  attach();
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** The reconciliation of one GPU, or null until the server sent one. */
export function useGpuReconciliation(uuid: string): GpuReconciliation | null {
  const read = useCallback(() => states[uuid] ?? null, [uuid]);
  return useSyncExternalStore(subscribe, read, () => null);
}

/** Every GPU's reconciliation by UUID (empty until the server sent them): for counts over the whole fleet. */
export function useGpuStates(): Record<string, GpuReconciliation> {
  return useSyncExternalStore(subscribe, readAll, readNone);
}

function readAll(): Record<string, GpuReconciliation> {
  return states;
}

const NONE: Record<string, GpuReconciliation> = {};
function readNone(): Record<string, GpuReconciliation> {
  return NONE;
}
