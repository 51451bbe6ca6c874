import { onAlertChanged } from "@/server/alerts/alert-events";
import { log } from "@/server/core/log";
import { DeliveryWorker, enqueueAlertDeliveries, type DeliveryWorkerOptions } from "@/server/notifications/deliveries";

const shared = globalThis as unknown as { __gpudeskDeliveryWorker?: DeliveryWorker };

/**
 * Webhooks for alerts: every alert opened or closed queues its deliveries,
 * and the worker sends them (with retries) in the background.
 */
export function startNotifications(options: DeliveryWorkerOptions & { publicUrl?: string } = {}): { stop: () => Promise<void> } {
  const worker = new DeliveryWorker(options);
  shared.__gpudeskDeliveryWorker = worker;
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
      await worker.stop();
    },
  };
}

/** Asks the running server's worker to look for due deliveries now (a test message was queued from a route). */
export function wakeDeliveries(): void {
  shared.__gpudeskDeliveryWorker?.wake();
}
