"use client";

import "./usage.css";
import { useRouter } from "next/navigation";
import { useTransition } from "react";
import { rangeSearch } from "@/lib/domain/usage-range";
import { formatBucketWidth, formatGpuHours, formatPct, formatRange } from "@/lib/format/usage-format";
import { IDLE_UTIL_PCT, type UsageGroupBy, type UsageReport } from "@/lib/domain/usage-types";
import { Badge } from "@/components/ui/badge";
import { BookedUsedChart } from "@/components/usage/booked-used-chart";
import { RangePicker, useMounted, type RangeChange } from "@/components/usage/range-picker";
import { HostsTable, PeopleTable } from "@/components/usage/usage-tables";
import { UtilizationChart } from "@/components/usage/utilization-chart";
import { UtilizationHeatmap } from "@/components/usage/utilization-heatmap";

/** What the figures leave out: GPU-hours whose minute detail could not be read (server/minutes/unreadable-blocks.ts). */
function leftOutLine(leftOut: UsageReport["minutesLeftOut"]): string {
  const gpus = new Set(leftOut.map((block) => block.gpuUuid)).size;
  const hours = leftOut.length === 1 ? "1 GPU-hour" : `${leftOut.length.toLocaleString("en-US")} GPU-hours`;
  return `Left out: ${hours} of minute detail on ${gpus === 1 ? "1 GPU" : `${gpus} GPUs`} could not be read (${leftOut[0]!.gpuUuid} at ${new Date(leftOut[0]!.hourMs).toISOString().slice(0, 16).replace("T", " ")} UTC${leftOut.length > 1 ? ", …" : ""}); the figures are the rest. An admin finds the blocks in GpuMinuteBlockSetAside and the log.`;
}

interface UsageDashboardProps {
  report: UsageReport;
  /** The page's own path: "/admin/usage" or "/usage". */
  basePath: string;
  /** Shown above everything, e.g. when the URL held a range that was not valid. */
  notice?: string | null;
}

function Card({ title, description, actions, children }: { title: string; description?: React.ReactNode; actions?: React.ReactNode; children: React.ReactNode }) {
  const id = title.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  return (
    <section aria-labelledby={id} className="min-w-0 rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900">
      <div className="mb-3 flex flex-wrap items-start justify-between gap-x-4 gap-y-2">
        <div className="min-w-0">
          <h2 id={id} className="font-semibold">
            {title}
          </h2>
          {description && <p className="mt-0.5 text-xs text-slate-500 dark:text-slate-400">{description}</p>}
        </div>
        {actions}
      </div>
      {children}
    </section>
  );
}

function Stat({ label, value, detail }: { label: string; value: string; detail?: string }) {
  return (
    <div className="rounded-xl border border-slate-200 bg-white px-4 py-3 dark:border-slate-800 dark:bg-slate-900">
      <dt className="text-xs text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className="mt-1 text-2xl font-semibold tabular-nums">{value}</dd>
      {detail && <dd className="mt-0.5 text-xs text-slate-500 dark:text-slate-400">{detail}</dd>}
    </div>
  );
}

const csvLink =
  "inline-flex items-center gap-1 rounded-md border border-slate-300 bg-white px-2.5 py-1 text-sm font-medium text-slate-800 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800";

/**
 * The usage page: range picker, headline figures, fleet utilization over
 * time, the GPU × time heatmap, booked versus used per person, and the
 * people and hosts tables with their CSV downloads. Everything arrives
 * aggregated; changing the range or grouping changes the URL and the
 * server answers with a new report.
 */
export function UsageDashboard({ report, basePath, notice }: UsageDashboardProps) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const mounted = useMounted();
  const { range, totals } = report;
  const self = report.scope === "self";

  const query = (changes: { range?: RangeChange; by?: UsageGroupBy }) => {
    const rangePart = rangeSearch(changes.range ?? range);
    const by = changes.by ?? report.groupBy;
    return `${rangePart}${by === "host" ? "" : `&by=${by}`}`;
  };
  const navigate = (changes: { range?: RangeChange; by?: UsageGroupBy }) =>
    startTransition(() => router.push(`${basePath}?${query(changes)}`, { scroll: false }));
  const exportHref = (table: "people" | "hosts") => `/api/v1/usage/export?${rangeSearch(range)}&table=${table}${self ? "&scope=self" : ""}`;
  // Shares of the booked time with readings: hours nobody reported on are unknown, not idle (server/history/usage-cells.ts).
  const seen = totals.seenBookedGpuHours;
  const bookedShare = seen > 0 ? (totals.usedWhileBookedGpuHours / seen) * 100 : null;
  const idleShare = seen > 0 ? (totals.idleBookedGpuHours / seen) * 100 : null;
  const unknown = totals.unknownGpuHours >= 0.05 ? `; ${formatGpuHours(totals.unknownGpuHours)} GPU-h without readings` : "";

  return (
    <div className={`space-y-6 transition-opacity ${pending ? "opacity-60" : ""}`} aria-busy={pending}>
      {notice && (
        <p role="status" className="rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950/40 dark:text-amber-200">
          {notice}
        </p>
      )}
      <div className="flex flex-wrap items-center justify-between gap-3">
        <RangePicker value={range} onChange={(next) => navigate({ range: next })} pending={pending} />
        <p className="flex flex-wrap items-center gap-2 text-xs text-slate-500 dark:text-slate-400">
          {report.includesSimulated && (
            <Badge tone="warn" title="Generated by --demo-history, not read from GPUs">
              Includes simulated history
            </Badge>
          )}
          <span data-testid="usage-range">{mounted ? formatRange(range.fromMs, range.toMs) : ""}</span>
          <span>
            · points of {formatBucketWidth(range.bucketMs)} from {range.source === "minute" ? "minute" : "hourly"} rollups
          </span>
        </p>
      </div>

      {report.minutesLeftOut.length > 0 && (
        <p role="status" data-testid="usage-left-out" className="rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100">
          {leftOutLine(report.minutesLeftOut)}
        </p>
      )}

      <dl className="grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-5">
        <Stat
          label={self ? "Mean utilization of your GPUs" : "Mean utilization"}
          value={formatPct(totals.meanUtilPct)}
          detail={`over ${formatGpuHours(totals.reportedGpuHours)} GPU-h with readings`}
        />
        <Stat label="GPU-hours used" value={formatGpuHours(totals.usedGpuHours)} detail="utilization-weighted" />
        <Stat label="GPU-hours booked" value={formatGpuHours(totals.bookedGpuHours)} detail={bookedShare === null ? (totals.bookedGpuHours > 0 ? `no readings yet${unknown}` : "no bookings") : `${formatPct(bookedShare)} of it used${unknown}`} />
        <Stat
          label="Idle while booked"
          value={`${formatGpuHours(totals.idleBookedGpuHours)} GPU-h`}
          detail={idleShare === null ? `below ${IDLE_UTIL_PCT}% utilization` : `${formatPct(idleShare)} of booked time with readings below ${IDLE_UTIL_PCT}%`}
        />
        {!self && <Stat label="Used without a booking" value={`${formatGpuHours(totals.unbookedUsedGpuHours)} GPU-h`} detail="time with processes on GPUs nobody had booked" />}
      </dl>

      <Card
        title={self ? "Utilization of the GPUs you booked" : "Fleet utilization"}
        description="Stacked: each layer is its share of the mean utilization of the GPUs reporting; gaps are times without readings."
        actions={
          <div role="group" aria-label="Group by" className="inline-flex rounded-lg bg-slate-100 p-1 text-sm dark:bg-slate-800">
            {(["host", "model"] as const).map((by) => (
              <button
                key={by}
                type="button"
                aria-pressed={report.groupBy === by}
                onClick={() => navigate({ by })}
                className={`rounded-md px-2.5 py-1 font-medium focus-visible:outline-2 focus-visible:outline-sky-500 ${
                  report.groupBy === by ? "bg-white shadow-sm dark:bg-slate-700" : "text-slate-600 hover:text-slate-900 dark:text-slate-300 dark:hover:text-white"
                }`}
              >
                By {by}
              </button>
            ))}
          </div>
        }
      >
        <figure aria-label="Fleet utilization chart" className="m-0">
          <UtilizationChart series={report.utilization} range={range} />
        </figure>
      </Card>

      <Card title="Utilization by GPU and hour" description="Mean utilization per GPU and time slot; grey where the GPU sent no readings.">
        <figure aria-label="Utilization heatmap" className="m-0">
          <UtilizationHeatmap heatmap={report.heatmap} range={range} />
        </figure>
      </Card>

      <Card
        title={self ? "Your GPU-hours: booked versus used" : "GPU-hours booked versus used, per person"}
        description={`Used is utilization-weighted (one GPU at 50% for an hour is 0.5 GPU-h). Idle: booked time below ${IDLE_UTIL_PCT}% utilization. Over long ranges, hourly rollups count a booking in the hours it held most of.`}
      >
        <figure aria-label="Booked versus used chart" className="m-0">
          <BookedUsedChart people={report.people} />
        </figure>
      </Card>

      <Card
        title="People"
        actions={
          <a className={csvLink} href={exportHref("people")} download>
            Download CSV
          </a>
        }
      >
        <PeopleTable people={report.people} />
      </Card>

      <Card
        title="Hosts"
        actions={
          <a className={csvLink} href={exportHref("hosts")} download>
            Download CSV
          </a>
        }
      >
        <HostsTable hosts={report.hosts} />
      </Card>
    </div>
  );
}
