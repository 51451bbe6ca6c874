"use client";

import { useCallback, useSyncExternalStore } from "react";
import { useEmbeddedFleet } from "@/components/live/embedded-fleet";
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
/** Whether the socket told any states yet: before, a page's embedded snapshot's are shown (components/live/embedded-fleet.ts). */
let heard = false;
const listeners = new Set<() => void>();
let attached = false;

function publish(next: Record<string, GpuReconciliation>): void {
  states = next;
  heard = true;
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
  const embedded = useEmbeddedFleet()?.gpuStates;
  const readEmbedded = useCallback(() => embedded?.[uuid] ?? null, [embedded, uuid]);
  const read = useCallback(() => (heard ? (states[uuid] ?? null) : readEmbedded()), [uuid, readEmbedded]);
  return useSyncExternalStore(subscribe, read, readEmbedded);
}

/** Every GPU's reconciliation by UUID (empty until the server sent them): for counts over the whole fleet. */
export function useGpuStates(): Record<string, GpuReconciliation> {
  const embedded = useEmbeddedFleet()?.gpuStates;
  const readEmbedded = useCallback(() => embedded ?? NONE, [embedded]);
  const read = useCallback(() => (heard ? states : readEmbedded()), [readEmbedded]);
  return useSyncExternalStore(subscribe, read, readEmbedded);
}

const NONE: Record<string, GpuReconciliation> = {};
