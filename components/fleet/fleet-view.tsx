"use client";

import { useMemo, useSyncExternalStore } from "react";
import { summarizeAvailability } from "@/lib/gpu-availability";
import { gpuStateOnPage } from "@/lib/gpu-state-now";
import { useGpuStates } from "@/components/live/use-gpu-states";
import { useLiveFleet } from "@/components/live/use-live-fleet";
import { useGrowingLimit } from "@/components/live/use-growing-limit";
import { useNow } from "@/components/live/use-now";
import { AppHeader } from "@/components/ui/app-header";
import { ConnectionBanner } from "@/components/fleet/connection-banner";
import { EmptyFleet } from "@/components/fleet/empty-fleet";
import { FleetSkeleton } from "@/components/fleet/fleet-skeleton";
import { FleetSummary } from "@/components/fleet/fleet-summary";
import { HostSection } from "@/components/fleet/host-section";

const noSubscription = () => () => {};

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
  const availability = summarizeAvailability(
    gpus.map((gpu) => ({ host: gpu.hostId, state: gpuStateOnPage(gpu, online.has(gpu.hostId), fleet.bookings, states[gpu.uuid], serverNow) })),
  );
  // Everyone holding or awaiting a GPU: a name is told apart from the others shown (lib/person-name.ts).
  const people = useMemo(() => fleet.bookings.map((booking) => booking.holder), [fleet.bookings]);
  // Hosts are mounted whole, in page order, as the limit reaches their first GPU.
  const mounted = useGrowingLimit(gpus.length, FIRST_CARDS, MOUNT_BUDGET_MS);
  let position = 0;

  return (
    <>
      <AppHeader status={fleet.status} simulated={fleet.simulated} />
      <main className="mx-auto max-w-screen-2xl space-y-6 px-4 py-6 sm:px-6">
        <div className="flex flex-wrap items-baseline justify-between gap-x-6 gap-y-1">
          <h1 className="text-2xl font-semibold tracking-tight">Fleet</h1>
          {fleet.hasSnapshot && fleet.hosts.length > 0 && <FleetSummary hosts={fleet.hosts} counts={availability.fleet} />}
        </div>

        <ConnectionBanner status={fleet.status} lastUpdateAt={fleet.lastUpdateAt} nowMs={now} onRetry={fleet.reconnect} />

        {!fleet.hasSnapshot ? (
          <FleetSkeleton />
        ) : fleet.hosts.length === 0 ? (
          <EmptyFleet serverUrl={origin} />
        ) : (
          <div className="space-y-10">
            {fleet.hosts.map((host) => {
              const first = position;
              position += host.gpuUuids.length;
              if (mounted < gpus.length && first >= mounted) return null;
              return (
                <HostSection
                  key={host.id}
                  host={host}
                  gpuUuids={host.gpuUuids.filter((uuid) => fleet.gpus[uuid] !== undefined)}
                  nowMs={serverNow}
                  bookings={fleet.bookings}
                  counts={availability.hosts[host.id]}
                  people={people}
                  position={first}
                />
              );
            })}
          </div>
        )}
      </main>
    </>
  );
}
