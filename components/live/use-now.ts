"use client";

import { useCallback, useSyncExternalStore } from "react";

/**
 * One ticking clock per interval for the whole page, so that fifty
 * "last seen 3 s ago" labels re-render together instead of each running a timer.
 */
const clocks = new Map<number, { now: number; listeners: Set<() => void>; timer: ReturnType<typeof setInterval> | null }>();

function clockFor(intervalMs: number) {
  let clock = clocks.get(intervalMs);
  if (!clock) {
    clock = { now: Date.now(), listeners: new Set(), timer: null };
    clocks.set(intervalMs, clock);
  }
  return clock;
}

function subscribe(intervalMs: number, listener: () => void) {
  const clock = clockFor(intervalMs);
  clock.listeners.add(listener);
  if (!clock.timer) {
    clock.now = Date.now();
    clock.timer = setInterval(() => {
      clock.now = Date.now();
      for (const notify of clock.listeners) notify();
    }, intervalMs);
  }
  return () => {
    clock.listeners.delete(listener);
    if (clock.listeners.size === 0 && clock.timer) {
      clearInterval(clock.timer);
      clock.timer = null;
    }
  };
}

const readOnServer = () => 0;

/**
 * The browser's current time in ms, updated every `intervalMs`. During server
 * rendering it is 0: callers show times only once live data is in, which
 * never happens on the server.
 */
export function useNow(intervalMs = 1000): number {
  const subscribeClock = useCallback((listener: () => void) => subscribe(intervalMs, listener), [intervalMs]);
  const read = useCallback(() => clockFor(intervalMs).now, [intervalMs]);
  return useSyncExternalStore(subscribeClock, read, readOnServer);
}
