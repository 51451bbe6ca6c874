import { onAlertChanged } from "@/server/alerts/alert-events";
import { log } from "@/server/core/log";
import { DeliveryWorker, enqueueAlertDeliveries, type DeliveryWorkerOptions } from "@/server/notifications/deliveries";
import { offerWaker, wakeWorker } from "@/server/runtime/runtime";

/**
 * Webhooks for alerts: every alert opened or closed queues its deliveries,
 * and the worker sends them (with retries) in the background.
 */
export function startNotifications(options: DeliveryWorkerOptions & { publicUrl?: string } = {}): { stop: () => Promise<void> } {
  const worker = new DeliveryWorker(options);
  const withdraw = offerWaker("webhook deliveries", () => worker.wake());
  const unsubscribe = onAlertChanged((change) => {
    enqueueAlertDeliveries(change, { publicUrl: options.publicUrl })
      .then((queued) => {
        if (queued > 0) worker.wake();
      })
      .catch((error: unknown) => log.error(`could not queue webhook deliveries: ${error instanceof Error ? error.message : String(error)}`));
  });
  worker.start();
  return {
    async stop() {
      unsubscribe();
      withdraw();
      await worker.stop();
    },
  };
}

/** Asks the running server's worker to look for due deliveries now (a test message was queued from a route). */
export function wakeDeliveries(): void {
  wakeWorker("webhook deliveries");
}
