import { formatGpuHours } from "@/lib/format/usage-format";
import type { PersonUsage, UsageTotals } from "@/lib/domain/usage-types";

/**
 * "Handed back by idle release": GPU-hours in total and per person, beside
 * the usage page's "idle while booked"; the same report's cells
 * (server/history/usage-cells.ts) as the tables and the other cards.
 */
export function HandedBackCard({ totals, people }: { totals: UsageTotals; people: PersonUsage[] }) {
  const released = people.filter((person) => person.handedBackReleases > 0).sort((a, b) => b.handedBackGpuHours - a.handedBackGpuHours);
  return (
    <section aria-labelledby="handed-back" data-testid="handed-back" className="rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900">
      <h2 id="handed-back" className="font-semibold">
        Handed back by idle release
      </h2>
      <p className="mt-0.5 text-xs text-slate-500 dark:text-slate-400">
        GPU-hours from each idle release to the end its booking had, for releases in this range; compare with “Idle while booked”.
      </p>
      <p className="mt-3 text-2xl font-semibold tabular-nums">
        {formatGpuHours(totals.handedBackGpuHours)} GPU-h{" "}
        <span className="text-sm font-normal text-slate-500">
          in {totals.handedBackReleases} release{totals.handedBackReleases === 1 ? "" : "s"}
        </span>
      </p>
      {released.length > 0 && (
        <ul className="mt-2 divide-y divide-slate-200 text-sm dark:divide-slate-800">
          {released.map((person, index) => (
            <li key={person.userId ?? index} className="flex justify-between py-1.5">
              <span>{person.label}</span>
              <span className="tabular-nums">
                {formatGpuHours(person.handedBackGpuHours)} GPU-h · {person.handedBackReleases}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
