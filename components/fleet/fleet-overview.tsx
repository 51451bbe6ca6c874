import Link from "next/link";
import { isPartitioned, unitName, type GpuState } from "@/lib/domain/gpu-availability";
import { gpuStateLabel } from "@/lib/domain/attribution";
import type { SlurmHoldNow } from "@/lib/domain/slurm";
import { overviewGroups } from "@/lib/live/fleet-overview";
import type { LiveGpu, LiveHost } from "@/lib/live/live";
import { STATE_SWATCHES } from "@/components/ui/gpu-state-colours";

interface FleetOverviewProps {
  hosts: LiveHost[];
  gpus: Record<string, LiveGpu>;
  /** Each unit's state by the one rule, as the cards and the wall show it. */
  stateOf: ReadonlyMap<string, GpuState>;
  /** What Slurm holds on a unit, where it does: the cell says "Held by Slurm (job 42 of bob)" for its state. */
  slurmOf?: ReadonlyMap<string, SlurmHoldNow>;
  /** Units the fleet page's filter keeps; null when no filter is set. */
  matching: ReadonlySet<string> | null;
}

/**
 * The whole fleet on one screen, the way the wall shows it: one small cell
 * per unit (a GPU, or each slice of a GPU in MIG mode), in the wall's
 * colour for its state, grouped by host, each cell a link to the unit's
 * page. The fleet page's filter fades what it leaves out instead of
 * removing it, so that the picture keeps its shape while one looks for
 * something in it. The state buttons of the filter bar are its legend.
 */
export function FleetOverview({ hosts, gpus, stateOf, slurmOf, matching }: FleetOverviewProps) {
  return (
    <section aria-labelledby="fleet-overview-heading" data-testid="fleet-overview" className="rounded-xl border border-slate-200 bg-white px-3 py-2.5 dark:border-slate-800 dark:bg-slate-900">
      <h2 id="fleet-overview-heading" className="sr-only">
        Overview of every GPU
      </h2>
      {/* A fleet of hundreds of hosts scrolls inside this box, so that the cards stay a scroll away. */}
      <ul data-testid="fleet-overview-hosts" className="flex max-h-[60vh] flex-wrap gap-x-4 gap-y-2 overflow-y-auto overscroll-contain">
        {overviewGroups(hosts, (host) =>
          host.gpuUuids
            .map((uuid) => gpus[uuid])
            .filter((gpu): gpu is LiveGpu => gpu !== undefined)
            .map((gpu) => ({ unit: gpu, state: stateOf.get(gpu.uuid) ?? "offline", split: isPartitioned(gpu) })),
        ).map(({ host, units }) => {
          return (
            <li key={host.id} data-testid="overview-host" data-host={host.name} className="min-w-0">
              <p className={`max-w-40 truncate text-xs font-medium ${host.online ? "text-slate-700 dark:text-slate-200" : "text-slate-400 line-through dark:text-slate-500"}`} title={host.name}>
                {host.name}
                {!host.online && <span className="sr-only"> (offline)</span>}
              </p>
              <ul className="mt-1 flex max-w-[10.5rem] flex-wrap gap-1 xl:max-w-[12rem]">
                {units.map(({ unit: gpu, state }) => {
                  const label = `${host.name} ${unitName(gpu)}: ${gpuStateLabel({ state, slurm: slurmOf?.get(gpu.uuid) })}`;
                  const kept = matching === null || matching.has(gpu.uuid);
                  return (
                    <li key={gpu.uuid} className="flex">
                      <Link
                        href={`/gpus/${encodeURIComponent(gpu.uuid)}`}
                        // A link per unit: prefetching 160 pages because they are on screen would cost more than the page.
                        prefetch={false}
                        aria-label={label}
                        title={label}
                        data-testid="overview-cell"
                        data-state={state}
                        data-kept={kept}
                        className={`block size-4 rounded-sm xl:size-5 hover:ring-2 hover:ring-slate-900 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-sky-500 dark:hover:ring-white ${STATE_SWATCHES[state]} ${kept ? "" : "opacity-20"}`}
                      />
                    </li>
                  );
                })}
              </ul>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
