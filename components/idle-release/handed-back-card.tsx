import { formatGpuHours } from "@/lib/usage-format";
import { personName } from "@/lib/person-name";
import type { HandedBack } from "@/server/idle-release/handed-back";

/** "Handed back by idle release": GPU-hours in total and per person, beside the usage page's "idle while booked". */
export function HandedBackCard({ handedBack }: { handedBack: HandedBack }) {
  return (
    <section aria-labelledby="handed-back" data-testid="handed-back" className="rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900">
      <h2 id="handed-back" className="font-semibold">
        Handed back by idle release
      </h2>
      <p className="mt-0.5 text-xs text-slate-500 dark:text-slate-400">
        GPU-hours from each idle release to the end its booking had, for releases in this range; compare with “Idle while booked”.
      </p>
      <p className="mt-3 text-2xl font-semibold tabular-nums">
        {formatGpuHours(handedBack.gpuHours)} GPU-h <span className="text-sm font-normal text-slate-500">in {handedBack.releases} release{handedBack.releases === 1 ? "" : "s"}</span>
      </p>
      {handedBack.people.length > 0 && (
        <ul className="mt-2 divide-y divide-slate-200 text-sm dark:divide-slate-800">
          {handedBack.people.map((entry, index) => (
            <li key={entry.person?.id ?? index} className="flex justify-between py-1.5">
              <span>{entry.person ? personName(entry.person) : "(someone removed)"}</span>
              <span className="tabular-nums">
                {formatGpuHours(entry.gpuHours)} GPU-h · {entry.releases}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
