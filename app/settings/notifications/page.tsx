import type { Metadata } from "next";
import { NotificationSettings } from "@/components/settings/notification-settings";
import { PageShell } from "@/app/_components/page-shell";
import { requirePageUser } from "@/server/auth/session";
import { getNotificationSettings } from "@/server/notifications/notification-preferences";

export const metadata: Metadata = { title: "Notifications" };
export const dynamic = "force-dynamic";

const PATH = "/settings/notifications";

export default function NotificationsPage() {
  return (
    <PageShell returnTo={PATH} width="narrow" title="Notifications" description="What gpudesk tells you about your own bookings, on the page and by mail.">
      <Notifications />
    </PageShell>
  );
}

async function Notifications() {
  const { user } = await requirePageUser(PATH);
  return <NotificationSettings initial={await getNotificationSettings(user.id)} />;
}
