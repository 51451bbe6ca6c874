import { startNotifications } from "@/server/notifications/notifications";
import type { TickConsumer } from "@/server/tick/tick-view";

/**
 * Webhook deliveries under the tick's leader job: they follow the alert
 * changes the rules make (alert events), not the ticks themselves, so this
 * consumer only starts and stops with each term of leadership.
 */
export function notificationsConsumer(options: { publicUrl?: string }): TickConsumer {
  let running: { stop: () => Promise<void> } | null = null;
  return {
    name: "webhook deliveries",
    runs: "leader",
    start() {
      running = startNotifications({ publicUrl: options.publicUrl });
    },
    async stop() {
      const term = running;
      running = null;
      await term?.stop();
    },
  };
}
