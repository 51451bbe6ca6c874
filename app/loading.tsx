import { FleetSkeleton } from "@/components/fleet/fleet-skeleton";

export default function Loading() {
  return (
    <main className="mx-auto max-w-screen-2xl px-4 py-20 sm:px-6">
      <FleetSkeleton />
    </main>
  );
}
