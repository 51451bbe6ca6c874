import type { LiveGpu, LiveHost } from "@/lib/live";

/** The one line a wall display needs: how much of the fleet is free right now. */
export function FleetSummary({ hosts, gpus }: { hosts: LiveHost[]; gpus: LiveGpu[] }) {
  const online = hosts.filter((host) => host.online);
  const onlineIds = new Set(online.map((host) => host.id));
  const live = gpus.filter((gpu) => onlineIds.has(gpu.hostId));
  const free = live.filter((gpu) => gpu.processes.length === 0).length;

  return (
    <p data-testid="fleet-summary" className="text-sm text-slate-600 dark:text-slate-300">
      <Figure value={online.length} /> of <Figure value={hosts.length} /> {hosts.length === 1 ? "host" : "hosts"} online
      <span aria-hidden> · </span>
      <span className="sr-only">, </span>
      <Figure value={free} /> of <Figure value={live.length} /> GPUs free
    </p>
  );
}

function Figure({ value }: { value: number }) {
  return <span className="font-semibold text-slate-900 tabular-nums dark:text-slate-100">{value}</span>;
}
