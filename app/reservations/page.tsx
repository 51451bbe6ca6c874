import type { Metadata } from "next";
import Link from "next/link";
import { MyReservations } from "@/components/reservations/my-reservations";
import { buttonClass } from "@/components/ui/button-styles";
import { PageShell } from "@/components/ui/page-shell";
import { getPageUser } from "@/server/auth/session";
import { listReservations } from "@/server/reservations/list-reservations";

export const metadata: Metadata = { title: "My reservations" };
export const dynamic = "force-dynamic";

export default function ReservationsPage() {
  return (
    <PageShell
      returnTo="/reservations"
      width="narrow"
      title="My reservations"
      description="Release early, extend while nothing follows, and copy the settings to start your jobs."
      actions={
        <Link href="/reserve" className={buttonClass("primary")}>
          Reserve GPUs
        </Link>
      }
    >
      <Reservations />
    </PageShell>
  );
}

/** Rendered by PageShell after its guard: the person is signed in. */
async function Reservations() {
  const principal = await getPageUser();
  if (!principal) return null;
  const reservations = await listReservations(principal.user, { all: false, state: "all", limit: 50 });
  return <MyReservations reservations={reservations} />;
}
