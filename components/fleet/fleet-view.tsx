"use client";

import { useCallback, useMemo, useSyncExternalStore } from "react";
import { useSearchParams } from "next/navigation";
import { countAvailability, isPartitioned, siliconOf, summarizeAvailability } from "@/lib/domain/gpu-availability";
import { filterChoices, fleetFilterQuery, gpuFacts, isFilterActive, matchesFleetFilter, parseFleetFilter, type FleetFilter } from "@/lib/live/fleet-filter";
import { gpuStateOnPage } from "@/lib/live/gpu-state-now";
import { bookingsOfGpu, showsSimulated } from "@/lib/live/live-fleet-state";
import { useGpuStates } from "@/components/live/use-gpu-states";
import { useLiveFleet } from "@/components/live/use-live-fleet";
import { openLiveFleetEarly } from "@/components/live/live-fleet-store";
import { useGrowingLimit } from "@/components/live/use-growing-limit";
import { useNow } from "@/components/live/use-now";
import { AppHeader } from "@/components/ui/app-header";
import { TimeZoneNote } from "@/components/ui/time-zone-note";
import { ConnectionBanner } from "@/components/fleet/connection-banner";
import { EmptyFleet } from "@/components/fleet/empty-fleet";
import { FleetSkeleton } from "@/components/fleet/fleet-skeleton";
import { FleetSummary } from "@/components/fleet/fleet-summary";
import { FleetFilterBar } from "@/components/fleet/fleet-filter-bar";
import { useFleetLayout, useFoldedHosts } from "@/components/fleet/fleet-layout-choice";
import { useOptionalCurrentUser } from "@/components/auth/current-user";
import { HostSection } from "@/components/fleet/host-section";
import { FleetOverview } from "@/components/fleet/fleet-overview";
import { countUnits } from "@/lib/domain/unit-count";
import { DemoChoiceCard } from "@/components/fleet/demo-choice-card";

const noSubscription = () => () => {};

// The fleet's snapshot is asked for as this script loads, while the page hydrates (components/live/live-fleet-store.ts).
openLiveFleetEarly();

/**
 * Cards mounted in the task that brings the first snapshot (what fills the
 * screen above the fold); after it, each task mounts as many as fit in
 * MOUNT_BUDGET_MS at the pace measured (components/live/use-growing-limit.ts): mounting
 * a 256-GPU fleet at once was one task of several hundred milliseconds.
 */
const FIRST_CARDS = 16;
/** Well under the 50 ms of a long task, so that a machine a few times slower stays under it too. */
const MOUNT_BUDGET_MS = 8;

/** The live fleet: every host and every GPU, updated once a second. */
export function FleetView() {
  const fleet = useLiveFleet();
  const now = useNow();
  const serverNow = now + fleet.clockOffsetMs;
  const origin = useSyncExternalStore(noSubscription, () => window.location.origin, () => "URL");
  const gpus = Object.values(fleet.gpus);
  const states = useGpuStates();
  const online = new Set(fleet.hosts.filter((host) => host.online).map((host) => host.id));
  // The header and each host count GPUs by the one rule, as each card's badge shows them.
  const silicon = Object.fromEntries(gpus.map((gpu) => [gpu.uuid, siliconOf(gpu)]));
  const facts = gpus.map((gpu) => {
    const current = bookingsOfGpu(fleet.bookings, silicon[gpu.uuid]!, serverNow).current;
    return gpuFacts(gpu, gpuStateOnPage(gpu, online.has(gpu.hostId), fleet.bookings, states[gpu.uuid], serverNow), current, states[gpu.uuid]);
  });
  // Units are counted: a GPU split into MIG slices counts as its slices (lib/domain/unit-count.ts, as every surface).
  const units = facts.filter((_, i) => !isPartitioned(gpus[i]));
  const unitCount = countUnits(gpus);
  const availability = summarizeAvailability(facts.flatMap((gpu, i) => (isPartitioned(gpus[i]) ? [] : [{ host: gpus[i].hostId, state: gpu.state }])));

  // The filter lives in the URL: a link or a reload shows the same GPUs.
  const searchParams = useSearchParams();
  const filter = parseFleetFilter(searchParams);
  const setFilter = useCallback((next: FleetFilter) => {
    const query = fleetFilterQuery(next, window.location.search);
    window.history.replaceState(null, "", query ? `?${query}` : window.location.pathname);
  }, []);
  const filtering = isFilterActive(filter);
  const shownUuids = new Set(facts.filter((gpu) => matchesFleetFilter(gpu, filter)).map((gpu) => gpu.uuid));
  // The filter bar counts units too: a split GPU shown for its slices is not one more.
  const shownUnits = units.filter((gpu) => shownUuids.has(gpu.uuid)).length;
  // Each state's button counts what it would show with the other criteria kept.
  const stateCounts = countAvailability(units.filter((gpu) => matchesFleetFilter(gpu, filter, true)).map((gpu) => gpu.state));
  const choices = filterChoices(facts);
  const stateOf = new Map(facts.map((gpu) => [gpu.uuid, gpu.state]));
  const slurmOf = new Map(gpus.flatMap((gpu) => (states[gpu.uuid]?.slurm ? [[gpu.uuid, states[gpu.uuid]!.slurm!] as const] : [])));

  const viewer = useOptionalCurrentUser();
  const [layout, setLayout] = useFleetLayout(viewer?.id ?? "anonymous");
  const [folded, toggleFold] = useFoldedHosts(viewer?.id ?? "anonymous");

  // Everyone holding or awaiting a GPU: a name is told apart from the others shown (lib/format/person-name.ts).
  const people = useMemo(() => fleet.bookings.map((booking) => booking.bookedBy), [fleet.bookings]);
  // Hosts in page order with the GPUs shown of each and the position of the first; a host the filter leaves nothing of is left out whole.
  const sections: { host: (typeof fleet.hosts)[number]; present: string[]; kept: string[]; first: number }[] = [];
  let position = 0;
  for (const host of fleet.hosts) {
    const present = host.gpuUuids.filter((uuid) => fleet.gpus[uuid] !== undefined);
    const kept = filtering ? present.filter((uuid) => shownUuids.has(uuid)) : present;
    if (filtering && kept.length === 0) continue;
    sections.push({ host, present, kept, first: position });
    position += kept.length;
  }
  // Hosts are mounted whole, in page order, as the limit reaches their first GPU; the limit grows a host at a time at least.
  const mounted = useGrowingLimit(shownUuids.size, FIRST_CARDS, MOUNT_BUDGET_MS, sections.map((section) => section.first + section.kept.length));

  return (
    <>
      <AppHeader status={fleet.status} simulated={showsSimulated(fleet)} />
      <main className="mx-auto max-w-screen-2xl space-y-6 px-4 py-6 sm:px-6">
        <div className="flex flex-wrap items-baseline justify-between gap-x-6 gap-y-1">
          <h1 className="text-2xl font-semibold tracking-tight">Fleet</h1>
          {fleet.hasSnapshot && fleet.hosts.length > 0 && <FleetSummary hosts={fleet.hosts} counts={availability.fleet} units={unitCount} />}
        </div>

        <DemoChoiceCard />

        {fleet.hasSnapshot && fleet.hosts.length > 0 && layout && (
          <FleetFilterBar
            filter={filter}
            onChange={setFilter}
            choices={choices}
            counts={stateCounts}
            shown={shownUnits}
            units={unitCount}
            layout={layout}
            onLayout={setLayout}
          />
        )}

        {fleet.hasSnapshot && fleet.hosts.length > 0 && <FleetOverview hosts={fleet.hosts} gpus={fleet.gpus} stateOf={stateOf} slurmOf={slurmOf} matching={filtering ? shownUuids : null} />}

        <ConnectionBanner status={fleet.status} lastUpdateAt={fleet.lastUpdateAt} nowMs={now} onRetry={fleet.reconnect} />

        {!fleet.hasSnapshot ? (
          <FleetSkeleton />
        ) : fleet.hosts.length === 0 ? (
          <EmptyFleet serverUrl={origin} />
        ) : (
          <div className={layout === "dense" ? "space-y-6" : "space-y-10"}>
            {sections.map(({ host, present, kept, first }) => {
              if (mounted < shownUuids.size && first >= mounted) return null;
              return (
                <HostSection
                  key={host.id}
                  host={host}
                  gpuUuids={kept}
                  silicon={silicon}
                  hiddenCount={present.length - kept.length}
                  nowMs={serverNow}
                  bookings={fleet.bookings}
                  counts={availability.hosts[host.id]}
                  people={people}
                  position={first}
                  layout={layout ?? "cards"}
                  folded={folded.has(host.id)}
                  onToggleFold={() => toggleFold(host.id)}
                />
              );
            })}
          </div>
        )}
        <TimeZoneNote />
      </main>
    </>
  );
}
