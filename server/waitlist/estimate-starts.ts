import { type BusyRange, freeGpuIds, nearestFreeStart } from "@/server/reservations/occupancy";

/**
 * When each waiting request can expect its GPUs, from the current bookings'
 * end times: the queue is played forward in order of service, each request
 * taking the first window that fits on a host it accepts, as grantWaiting
 * would grant it. A request is never estimated to start before an earlier
 * one that competes for the same GPUs, because grantWaiting holds later
 * requests back behind it. Pure, so that it is tested on plain data.
 *
 * What it cannot know: bookings released early, new bookings made before
 * the request is served, or processes running without a booking.
 */

export interface EstimateHost {
  name: string;
  gpuIds: string[];
}

export interface EstimateEntry {
  id: string;
  /** null: any host. */
  hostName: string | null;
  count: number;
  durationMinutes: number;
}

export function estimateStarts(entries: EstimateEntry[], hosts: EstimateHost[], busy: BusyRange[], nowMs: number, horizonMs: number): Map<string, number | null> {
  const taken = [...busy];
  const estimates = new Map<string, number | null>();
  /** The latest estimated start per host name among the requests seen so far, and over "any host" requests. */
  const heldBack = new Map<string, number>();
  let anyHostHeldBack = nowMs;
  let anyUnknown = false;
  const unknownHosts = new Set<string>();

  for (const entry of entries) {
    const accepted = hosts.filter((host) => (entry.hostName === null || host.name === entry.hostName) && host.gpuIds.length >= entry.count);
    // An earlier request that competes and has no estimate holds this one back for as long: no estimate either.
    const blocked = anyUnknown || (entry.hostName === null ? unknownHosts.size > 0 : unknownHosts.has(entry.hostName));
    const notBefore = Math.max(
      nowMs,
      anyHostHeldBack,
      ...(entry.hostName === null ? [...heldBack.values()] : [heldBack.get(entry.hostName) ?? nowMs]),
    );
    const durationMs = entry.durationMinutes * 60_000;
    let best: { host: EstimateHost; startMs: number } | null = null;
    if (!blocked) {
      for (const host of accepted) {
        const startMs = nearestFreeStart(host.gpuIds, entry.count, taken, notBefore, durationMs, nowMs + horizonMs);
        if (startMs !== null && (!best || startMs < best.startMs)) best = { host, startMs };
      }
    }
    estimates.set(entry.id, best?.startMs ?? null);
    // A request no host can ever hold is refused when served (not a conflict): it holds nobody back.
    if (accepted.length === 0) continue;
    if (!best) {
      if (entry.hostName === null) anyUnknown = true;
      else unknownHosts.add(entry.hostName);
      continue;
    }
    // It will hold these GPUs: later requests plan around them.
    const free = freeGpuIds(best.host.gpuIds, taken, best.startMs, best.startMs + durationMs).slice(0, entry.count);
    for (const gpuId of free) taken.push({ gpuId, startMs: best.startMs, endMs: best.startMs + durationMs });
    if (entry.hostName === null) anyHostHeldBack = Math.max(anyHostHeldBack, best.startMs);
    else heldBack.set(entry.hostName, Math.max(heldBack.get(entry.hostName) ?? nowMs, best.startMs));
  }
  return estimates;
}
