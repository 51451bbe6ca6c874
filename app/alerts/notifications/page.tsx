import type { Metadata } from "next";
import { NotificationsPanel } from "@/components/alerts/notifications-panel";
import { PageShell } from "@/app/_components/page-shell";
import { getPageUser } from "@/server/auth/session";
import { MailLog } from "@/components/alerts/mail-log";
import { listMailDeliveries } from "@/server/notifications/mail-log";
import { listDeliveries, listWebhooks } from "@/server/notifications/webhooks";

export const metadata: Metadata = { title: "Notify me" };
export const dynamic = "force-dynamic";

export default function PersonalNotificationsPage() {
  return (
    <PageShell
      returnTo="/alerts/notifications"
      title="Notify me"
      description="Your own webhooks: gpudesk posts there when an alert about one of your bookings opens or closes."
    >
      <Notifications />
    </PageShell>
  );
}

/** Rendered by PageShell after its guard: the person is signed in. */
async function Notifications() {
  const principal = await getPageUser();
  if (!principal) return null;
  const [webhooks, deliveries] = await Promise.all([listWebhooks(principal.user, "personal"), listDeliveries(principal.user, { limit: 100, mine: true })]);
  const mail = await listMailDeliveries(principal.user, { limit: 100, mine: true });
  return (
    <div className="space-y-8">
      <NotificationsPanel scope="personal" webhooks={webhooks} deliveries={deliveries} />
      <MailLog mail={mail} />
    </div>
  );
}
