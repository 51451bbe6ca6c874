"use client";

import { useState } from "react";
import type { DeliveryView, WebhookView } from "@/lib/domain/alerts";
import { DeliveryLog } from "@/components/alerts/delivery-log";
import { WebhookManager } from "@/components/alerts/webhook-manager";

/** Webhooks and their delivery log on one page: a test sent above shows up below. */
export function NotificationsPanel({ scope, webhooks, deliveries }: { scope: "admin" | "personal"; webhooks: WebhookView[]; deliveries: DeliveryView[] }) {
  const [tested, setTested] = useState(0);
  return (
    <div className="space-y-8">
      <WebhookManager scope={scope} initialWebhooks={webhooks} onTested={() => setTested((count) => count + 1)} />
      <DeliveryLog initial={deliveries} mine={scope === "personal"} refreshKey={tested} />
    </div>
  );
}
