import type { LiveHost } from "@/lib/live/live";
import type { AvailabilityCounts } from "@/lib/domain/gpu-availability";
import { gpusPhrase, unitNoun, type UnitCount } from "@/lib/domain/unit-count";

/**
 * The one line read first: hosts online, and how many GPUs are free right
 * now by the one availability rule (nobody's booking, nothing running, host
 * reporting, no error), the same count the cards' "Free" badges add up to.
 */
export function FleetSummary({ hosts, counts, units }: { hosts: LiveHost[]; counts: AvailabilityCounts; units: UnitCount }) {
  const online = hosts.filter((host) => host.online).length;
  return (
    <p data-testid="fleet-summary" data-free={counts.free} data-total={counts.total} className="text-sm text-slate-600 dark:text-slate-300">
      <Figure value={online} /> of <Figure value={hosts.length} /> {hosts.length === 1 ? "host" : "hosts"} online
      <span aria-hidden> · </span>
      <span className="sr-only">, </span>
      <Figure value={counts.free} /> of <Figure value={counts.total} /> {unitNoun(units, counts.total)} free
      {units.split > 0 && <span className="text-slate-500 dark:text-slate-400"> ({gpusPhrase(units)})</span>}
    </p>
  );
}

function Figure({ value }: { value: number }) {
  return <span className="font-semibold text-slate-900 tabular-nums dark:text-slate-100">{value}</span>;
}
