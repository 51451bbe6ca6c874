import type { Metadata } from "next";
import Link from "next/link";
import { QueueTable } from "@/components/waitlist/queue-table";
import { buttonClass } from "@/components/ui/button-styles";
import { PageShell } from "@/app/_components/page-shell";
import { getPageUser } from "@/server/auth/session";
import { listWaitlist } from "@/server/waitlist/list-waitlist";

export const metadata: Metadata = { title: "Queue" };
export const dynamic = "force-dynamic";

export default function QueuePage() {
  return (
    <PageShell
      returnTo="/queue"
      title="Queue"
      description="Requests waiting for GPUs, in the order they are served. Each becomes a booking by itself when GPUs free up."
      actions={
        <Link href="/reserve?count=1" className={buttonClass("primary")}>
          Reserve or queue
        </Link>
      }
    >
      <Queue />
    </PageShell>
  );
}

/** Rendered by PageShell after its guard: the person is signed in. */
async function Queue() {
  const principal = await getPageUser();
  if (!principal) return null;
  return <QueueTable entries={await listWaitlist()} />;
}
