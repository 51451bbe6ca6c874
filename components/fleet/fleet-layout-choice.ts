"use client";

import { useCallback, useSyncExternalStore } from "react";

/**
 * How a person lays out the fleet view: cards or the dense list, and which
 * hosts they folded. Remembered per person in this browser (localStorage,
 * keyed by their id), so that two people sharing a lab machine each keep
 * theirs. With no choice made, a phone gets the dense list: a card per GPU
 * is a screen of scrolling per GPU there.
 */

export type FleetLayout = "cards" | "dense";

const PHONE_MAX_WIDTH = 640;
const listeners = new Set<() => void>();

function storageKey(kind: "layout" | "folded", personId: string): string {
  return `gpudesk.fleet.${kind}.${personId}`;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  // Another tab of the same person changing its choice.
  window.addEventListener("storage", listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", listener);
  };
}

function write(key: string, value: string): void {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // Storage full or refused (private mode): the choice holds for this page only.
  }
  for (const listener of listeners) listener();
}

function read(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** The person's layout and a setter; null while server-rendering (the fleet is drawn in the browser only). */
export function useFleetLayout(personId: string): [FleetLayout | null, (layout: FleetLayout) => void] {
  const key = storageKey("layout", personId);
  const layout = useSyncExternalStore(
    subscribe,
    () => {
      const stored = read(key);
      if (stored === "cards" || stored === "dense") return stored;
      return window.innerWidth < PHONE_MAX_WIDTH ? "dense" : "cards";
    },
    () => null,
  );
  const choose = useCallback((next: FleetLayout) => write(key, next), [key]);
  return [layout, choose];
}

/** The host ids this person folded, and a toggle. The set's text form is the snapshot, so that it compares by value. */
export function useFoldedHosts(personId: string): [ReadonlySet<string>, (hostId: string) => void] {
  const key = storageKey("folded", personId);
  const text = useSyncExternalStore(subscribe, () => read(key) ?? "[]", () => "[]");
  const folded = parseFolded(text);
  const toggle = useCallback(
    (hostId: string) => {
      const next = new Set(parseFolded(read(key) ?? "[]"));
      if (next.has(hostId)) next.delete(hostId);
      else next.add(hostId);
      write(key, JSON.stringify([...next]));
    },
    [key],
  );
  return [folded, toggle];
}

let lastText = "";
let lastSet: ReadonlySet<string> = new Set();
function parseFolded(text: string): ReadonlySet<string> {
  if (text === lastText) return lastSet;
  let ids: unknown;
  try {
    ids = JSON.parse(text);
  } catch {
    ids = [];
  }
  lastText = text;
  lastSet = new Set(Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : []);
  return lastSet;
}
