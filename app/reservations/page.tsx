import type { Metadata } from "next";
import Link from "next/link";
import { AdminBookings } from "@/components/reservations/admin-bookings";
import { MyReservations } from "@/components/reservations/my-reservations";
import { buttonClass } from "@/components/ui/button-styles";
import { PageShell } from "@/app/_components/page-shell";
import { isAdmin } from "@/server/auth/principal";
import { getPageUser } from "@/server/auth/session";
import { listReservations } from "@/server/reservations/list-reservations";

export const metadata: Metadata = { title: "My reservations" };
export const dynamic = "force-dynamic";

export default async function ReservationsPage() {
  // Admins also get everyone's bookings as a table, which needs the wider page.
  const wide = isAdmin(await getPageUser());
  return (
    <PageShell
      returnTo="/reservations"
      width={wide ? "default" : "narrow"}
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
  const [reservations, everyone] = await Promise.all([
    listReservations(principal.user, { all: false, state: "all", limit: 50 }),
    isAdmin(principal) ? listReservations(principal.user, { all: true, state: "current", limit: 0 }) : null,
  ]);
  return (
    <div className="space-y-10">
      <MyReservations reservations={reservations} />
      {/* Admins act on other people's bookings here: cancel or shorten, with a reason the holder sees. */}
      {everyone && <AdminBookings reservations={everyone} />}
    </div>
  );
}
