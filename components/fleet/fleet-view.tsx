"use client";

import { useSyncExternalStore } from "react";
import { gpusOfHost } from "@/lib/live-fleet-state";
import { useLiveFleet } from "@/lib/use-live-fleet";
import { useNow } from "@/lib/use-now";
import { AppHeader } from "@/components/ui/app-header";
import { ConnectionBanner } from "@/components/fleet/connection-banner";
import { EmptyFleet } from "@/components/fleet/empty-fleet";
import { FleetSkeleton } from "@/components/fleet/fleet-skeleton";
import { FleetSummary } from "@/components/fleet/fleet-summary";
import { HostSection } from "@/components/fleet/host-section";

const noSubscription = () => () => {};

/** The live fleet: every host and every GPU, updated once a second. */
export function FleetView() {
  const fleet = useLiveFleet();
  const now = useNow();
  const serverNow = now + fleet.clockOffsetMs;
  const origin = useSyncExternalStore(noSubscription, () => window.location.origin, () => "URL");
  const gpus = Object.values(fleet.gpus);

  return (
    <>
      <AppHeader status={fleet.status} simulated={fleet.simulated} />
      <main className="mx-auto max-w-screen-2xl space-y-6 px-4 py-6 sm:px-6">
        <div className="flex flex-wrap items-baseline justify-between gap-x-6 gap-y-1">
          <h1 className="text-2xl font-semibold tracking-tight">Fleet</h1>
          {fleet.hasSnapshot && fleet.hosts.length > 0 && <FleetSummary hosts={fleet.hosts} gpus={gpus} />}
        </div>

        <ConnectionBanner status={fleet.status} lastUpdateAt={fleet.lastUpdateAt} nowMs={now} onRetry={fleet.reconnect} />

        {!fleet.hasSnapshot ? (
          <FleetSkeleton />
        ) : fleet.hosts.length === 0 ? (
          <EmptyFleet serverUrl={origin} />
        ) : (
          <div className="space-y-10">
            {fleet.hosts.map((host) => (
              <HostSection
                key={host.id}
                host={host}
                gpus={gpusOfHost(fleet, host)}
                sparklines={fleet.sparklines}
                nowMs={serverNow}
                bookings={fleet.bookings}
              />
            ))}
          </div>
        )}
      </main>
    </>
  );
}
