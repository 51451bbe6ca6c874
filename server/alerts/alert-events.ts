import type { AlertUpdate } from "@/lib/alerts";
import { log } from "@/server/log";

/**
 * "An alert opened, closed or was acknowledged": the monitor and the
 * acknowledge route announce it, the /live pusher and the webhooks listen.
 * The listeners live on globalThis because Next's route bundles load their
 * own copy of this module, while the listeners run in the custom server's.
 */
type Listener = (change: AlertUpdate) => void;

const holder = globalThis as unknown as { __gpudeskAlertListeners?: Set<Listener> };

function listeners(): Set<Listener> {
  holder.__gpudeskAlertListeners ??= new Set();
  return holder.__gpudeskAlertListeners;
}

export function onAlertChanged(listener: Listener): () => void {
  listeners().add(listener);
  return () => {
    listeners().delete(listener);
  };
}

export function announceAlertChanged(change: AlertUpdate): void {
  for (const listener of listeners()) {
    try {
      listener(change);
    } catch (error) {
      // One failing listener must not keep the others from hearing it.
      log.error(`an alert listener failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
