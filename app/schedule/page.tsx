import type { Metadata } from "next";
import Link from "next/link";
import { ScheduleView } from "@/components/bookings/schedule-view";
import { WeekView } from "@/components/bookings/week-view";
import { WeekPicker } from "@/components/bookings/week-picker";
import { buttonClass } from "@/components/ui/button-styles";
import { PageShell } from "@/app/_components/page-shell";
import { unitRef } from "@/lib/domain/gpu-availability";
import { listBookableHosts, listSchedule } from "@/server/bookings/views/bookings-query";
import { listSlurmBlocks, slurmUnplanned } from "@/server/bookings/views/slurm-blocks";
import { slurmUnplannedSentence } from "@/lib/domain/slurm";

export const metadata: Metadata = { title: "Schedule" };
export const dynamic = "force-dynamic";

const DAY_CHOICES = [1, 3, 7, 14];
const DAY_MS = 24 * 3600_000;

interface SchedulePageProps {
  searchParams: Promise<{ days?: string; view?: string; host?: string; gpu?: string }>;
}

export default async function SchedulePage({ searchParams }: SchedulePageProps) {
  const params = await searchParams;
  const week = params.view === "week";
  const asked = Number(params.days);
  const days = DAY_CHOICES.includes(asked) ? asked : 3;
  const host = typeof params.host === "string" ? params.host.slice(0, 253) : undefined;
  // A GPU's index ("2") or a MIG slice's ref ("0:1").
  const gpu = typeof params.gpu === "string" && /^\d{1,3}(:\d{1,3})?$/.test(params.gpu) ? params.gpu : null;
  const weekQuery = new URLSearchParams({ view: "week", ...(host ? { host } : {}), ...(gpu !== null ? { gpu } : {}) });
  return (
    <PageShell
      returnTo={week ? `/schedule?${weekQuery}` : `/schedule?days=${days}`}
      width="wide"
      title="Schedule"
      description={week ? "The coming week of one host, as a calendar. Drag over free time of a GPU to book it." : "Every booking of every GPU and MIG slice for the coming days. Click free time to book it."}
      actions={
        <>
          {DAY_CHOICES.map((choice) => (
            <Link
              key={choice}
              href={`/schedule?days=${choice}`}
              aria-current={!week && choice === days ? "page" : undefined}
              className={buttonClass(!week && choice === days ? "primary" : "secondary", "sm")}
            >
              {choice === 1 ? "1 day" : `${choice} days`}
            </Link>
          ))}
          <Link href={`/schedule?${weekQuery}`} aria-current={week ? "page" : undefined} className={buttonClass(week ? "primary" : "secondary", "sm")}>
            Week
          </Link>
        </>
      }
    >
      {week ? <Week hostName={host} gpu={gpu} /> : <Schedule days={days} />}
    </PageShell>
  );
}

async function Schedule({ days }: { days: number }) {
  // An hour of the past for context, then the days ahead.
  const fromMs = Math.floor((Date.now() - 3600_000) / 3600_000) * 3600_000;
  const toMs = fromMs + days * DAY_MS;
  const [hosts, bookings] = await Promise.all([listBookableHosts(), listSchedule(new Date(fromMs), new Date(toMs))]);
  if (hosts.length === 0) return <p className="text-slate-600 dark:text-slate-400">No host has reported any GPU yet.</p>;
  const unplanned = slurmUnplannedSentence(slurmUnplanned());
  return (
    <>
      {unplanned && (
        <p data-testid="slurm-unplanned" className="mb-2 text-sm text-slate-600 dark:text-slate-400">
          {unplanned}: Slurm has not placed them, so they are on no GPU below.
        </p>
      )}
      <ScheduleView hosts={hosts} bookings={bookings} slurm={listSlurmBlocks(new Date(fromMs), new Date(toMs))} fromMs={fromMs} toMs={toMs} days={days} />
    </>
  );
}

async function Week({ hostName, gpu }: { hostName: string | undefined; gpu: string | null }) {
  const hosts = await listBookableHosts();
  if (hosts.length === 0) return <p className="text-slate-600 dark:text-slate-400">No host has reported any GPU yet.</p>;
  const host = hosts.find((candidate) => candidate.name === hostName) ?? hosts[0];
  const shown = gpu !== null && host.gpus.some((entry) => !entry.partitioned && unitRef(entry) === gpu) ? gpu : null;
  // The viewer's week starts at their local midnight, which the server does not know: a day either side covers every zone.
  const now = Date.now();
  const bookings = (await listSchedule(new Date(now - 2 * DAY_MS), new Date(now + 9 * DAY_MS))).filter((booking) => booking.hostId === host.id);
  return (
    <div className="space-y-4">
      <WeekPicker hosts={hosts} host={host.name} gpu={shown} />
      <WeekView host={host} unitRef={shown} bookings={bookings} slurm={listSlurmBlocks(new Date(now - 2 * DAY_MS), new Date(now + 9 * DAY_MS)).filter((block) => block.hostId === host.id)} />
    </div>
  );
}
