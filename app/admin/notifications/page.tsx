import type { Metadata } from "next";
import { NotificationsPanel } from "@/components/alerts/notifications-panel";
import { PageShell } from "@/app/_components/page-shell";
import { getPageUser } from "@/server/auth/session";
import { MailLog } from "@/components/alerts/mail-log";
import { listMailDeliveries } from "@/server/notifications/mail-log";
import { listDeliveries, listWebhooks } from "@/server/notifications/webhooks";

export const metadata: Metadata = { title: "Notifications" };
export const dynamic = "force-dynamic";

export default function AdminNotificationsPage() {
  return (
    <PageShell
      returnTo="/admin/notifications"
      admin
      title="Notifications"
      description="Fleet-wide webhooks per alert kind, and the log of every delivery (personal webhooks included), retried with backoff."
    >
      <Notifications />
    </PageShell>
  );
}

/** Rendered by PageShell only for admins. */
async function Notifications() {
  const principal = await getPageUser();
  if (!principal) return null;
  const [webhooks, deliveries] = await Promise.all([listWebhooks(principal.user, "admin"), listDeliveries(principal.user, { limit: 100 })]);
  const mail = await listMailDeliveries(principal.user, { limit: 100, mine: false });
  return (
    <div className="space-y-8">
      <NotificationsPanel scope="admin" webhooks={webhooks} deliveries={deliveries} />
      <MailLog mail={mail} />
    </div>
  );
}
