import type { Metadata } from "next";
import Link from "next/link";
import { ScheduleView } from "@/components/reservations/schedule-view";
import { buttonClass } from "@/components/ui/button-styles";
import { PageShell } from "@/app/_components/page-shell";
import { listBookableHosts, listSchedule } from "@/server/reservations/bookings-query";

export const metadata: Metadata = { title: "Schedule" };
export const dynamic = "force-dynamic";

const DAY_CHOICES = [1, 3, 7, 14];

interface SchedulePageProps {
  searchParams: Promise<{ days?: string }>;
}

export default async function SchedulePage({ searchParams }: SchedulePageProps) {
  const asked = Number((await searchParams).days);
  const days = DAY_CHOICES.includes(asked) ? asked : 3;
  return (
    <PageShell
      returnTo={`/schedule?days=${days}`}
      width="wide"
      title="Schedule"
      description="Every booking of every GPU for the coming days. Click free time to book it."
      actions={DAY_CHOICES.map((choice) => (
        <Link key={choice} href={`/schedule?days=${choice}`} aria-current={choice === days ? "page" : undefined} className={buttonClass(choice === days ? "primary" : "secondary", "sm")}>
          {choice === 1 ? "1 day" : `${choice} days`}
        </Link>
      ))}
    >
      <Schedule days={days} />
    </PageShell>
  );
}

async function Schedule({ days }: { days: number }) {
  // An hour of the past for context, then the days ahead.
  const fromMs = Math.floor((Date.now() - 3600_000) / 3600_000) * 3600_000;
  const toMs = fromMs + days * 24 * 3600_000;
  const [hosts, bookings] = await Promise.all([listBookableHosts(), listSchedule(new Date(fromMs), new Date(toMs))]);
  if (hosts.length === 0) return <p className="text-slate-600 dark:text-slate-400">No host has reported any GPU yet.</p>;
  return <ScheduleView hosts={hosts} bookings={bookings} fromMs={fromMs} toMs={toMs} days={days} />;
}
