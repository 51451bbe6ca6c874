import type { AlertsSnapshot, AlertUpdate } from "@/lib/alerts";
import { getLiveSocket } from "@/lib/live-socket";

/**
 * How many alerts are open, for the wall display's summary strip. The
 * server sends alerts only to people (admins get all, members theirs), never
 * to a display token: null then, and the strip leaves the figure out rather
 * than showing a 0 it cannot know.
 */

/** More open alerts than this is a fleet on fire; the strip says "N+" rather than holding them all. */
const MAX_TRACKED = 10_000;

let open: Set<string> | null = null;
let count: number | null = null;
const listeners = new Set<() => void>();
let retainCount = 0;
let detach: (() => void) | null = null;

function publish() {
  const next = open === null ? null : open.size;
  if (next === count) return;
  count = next;
  for (const listener of listeners) listener();
}

export function getOpenAlertCount(): number | null {
  return count;
}

export function getServerOpenAlertCount(): number | null {
  return null;
}

export function subscribeOpenAlertCount(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** Applies one update to the set of open alert ids; exported for the tests. */
export function applyAlertUpdate(ids: Set<string>, update: AlertUpdate): void {
  if (update.event === "closed" || update.alert.closedAt !== null) ids.delete(update.alert.id);
  else if (ids.size < MAX_TRACKED) ids.add(update.alert.id);
}

/** Listens while retained; returns the release. */
export function retainOpenAlertCount(): () => void {
  retainCount += 1;
  if (!detach) {
    const socket = getLiveSocket();
    // Every (re)connect brings the full list: it replaces what was held.
    const onSnapshot = (snapshot: AlertsSnapshot) => {
      open = new Set(snapshot.alerts.filter((alert) => alert.closedAt === null).slice(0, MAX_TRACKED).map((alert) => alert.id));
      publish();
    };
    const onUpdate = (update: AlertUpdate) => {
      if (!open) return;
      applyAlertUpdate(open, update);
      publish();
    };
    socket.on("alerts:snapshot", onSnapshot);
    socket.on("alerts:update", onUpdate);
    detach = () => {
      socket.off("alerts:snapshot", onSnapshot);
      socket.off("alerts:update", onUpdate);
    };
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    retainCount -= 1;
    if (retainCount === 0) {
      detach?.();
      detach = null;
      open = null;
      publish();
    }
  };
}
