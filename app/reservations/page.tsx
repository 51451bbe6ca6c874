import type { Metadata } from "next";
import Link from "next/link";
import { AdminBookings } from "@/components/bookings/admin-bookings";
import { MyBookings } from "@/components/bookings/my-bookings";
import { PastPager } from "@/components/bookings/past-pager";
import { buttonClass } from "@/components/ui/button-styles";
import { PageShell } from "@/app/_components/page-shell";
import { getPageUser } from "@/server/auth/session";
import { countPastBookingsFor, listBookings } from "@/server/bookings/views/list-bookings";
import { can } from "@/server/access/permissions";

export const metadata: Metadata = { title: "My bookings" };
export const dynamic = "force-dynamic";

/** Past bookings per page: each `gpudesk run` adds one, so the list is paged rather than grown. */
const PAST_PER_PAGE = 20;

interface BookingsPageProps {
  searchParams: Promise<{ past?: string; q?: string }>;
}

export default async function BookingsPage({ searchParams }: BookingsPageProps) {
  const params = await searchParams;
  const page = Math.min(10_000, Math.max(1, Math.floor(Number(params.past)) || 1));
  const search = typeof params.q === "string" ? params.q.trim().slice(0, 100) : "";
  // Admins also get everyone's bookings as a table, which needs the wider page.
  const viewer = await getPageUser();
  const wide = viewer !== null && can.seeAllBookings(viewer.user);
  const query = new URLSearchParams({ ...(page > 1 ? { past: String(page) } : {}), ...(search ? { q: search } : {}) }).toString();
  return (
    <PageShell
      returnTo={`/reservations${query ? `?${query}` : ""}`}
      width={wide ? "default" : "narrow"}
      title="My bookings"
      description="Release early, extend while nothing follows, and copy the settings to start your jobs."
      actions={
        <Link href="/reserve" className={buttonClass("primary")}>
          Reserve GPUs
        </Link>
      }
    >
      <Bookings page={page} search={search} />
    </PageShell>
  );
}

/** Rendered by PageShell after its guard: the person is signed in. */
async function Bookings({ page, search }: { page: number; search: string }) {
  const principal = await getPageUser();
  if (!principal) return null;
  const [bookings, pastCount, everyone] = await Promise.all([
    listBookings(principal.user, { all: false, state: "all", limit: PAST_PER_PAGE, skip: (page - 1) * PAST_PER_PAGE, search }),
    countPastBookingsFor(principal.user, { all: false, search }),
    can.seeAllBookings(principal.user) ? listBookings(principal.user, { all: true, state: "current", limit: 0 }) : null,
  ]);
  return (
    <div className="space-y-10">
      <MyBookings bookings={bookings} />
      <PastPager page={page} pages={Math.max(1, Math.ceil(pastCount / PAST_PER_PAGE))} total={pastCount} search={search} />
      {/* Admins act on other people's bookings here: cancel or shorten, with a reason the booker sees. */}
      {everyone && <AdminBookings bookings={everyone} />}
    </div>
  );
}
