import { type BusyRange, freeGpuIds, nearestFreeStart } from "@/server/core/occupancy";

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
  /** The hosts its limits let it take (a team's host rule); absent: every host. */
  allowedHosts?: readonly string[];
  count: number;
  durationMinutes: number;
  /**
   * Absent: its limits let it through now. A time: a limit (the team's or
   * its person's own) holds it until then; null: a limit holds it and does
   * not leave room by itself (only an admin's change does).
   */
  limitFreesAtMs?: number | null;
}

/**
 * A request held by a limit is passed over by every grant until the limit
 * leaves room, so it neither takes GPUs ahead of the requests behind it
 * nor holds them back: those are planned first, and it is planned after
 * them from when its limit leaves room (no earlier than the requests ahead
 * of it allowed), or not at all when the limit never does by itself.
 */
export function estimateStarts(entries: EstimateEntry[], hosts: EstimateHost[], busy: BusyRange[], nowMs: number, horizonMs: number): Map<string, number | null> {
  const taken = [...busy];
  const estimates = new Map<string, number | null>();
  /** The latest estimated start per host name among the requests seen so far, and over "any host" requests. */
  const heldBack = new Map<string, number>();
  let anyHostHeldBack = nowMs;
  let anyUnknown = false;
  const unknownHosts = new Set<string>();
  const limited: { entry: EstimateEntry; notBefore: number; blocked: boolean }[] = [];

  const plan = (entry: EstimateEntry, notBefore: number, blocked: boolean) => {
    const accepted = hosts.filter(
      (host) => (entry.hostName === null || host.name === entry.hostName) && (!entry.allowedHosts || entry.allowedHosts.includes(host.name)) && host.gpuIds.length >= entry.count,
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
    if (best) {
      // It will hold these GPUs: later requests plan around them.
      const free = freeGpuIds(best.host.gpuIds, taken, best.startMs, best.startMs + durationMs).slice(0, entry.count);
      for (const gpuId of free) taken.push({ gpuId, startMs: best.startMs, endMs: best.startMs + durationMs });
    }
    return { accepted, best };
  };

  for (const entry of entries) {
    // An earlier request that competes and has no estimate holds this one back for as long: no estimate either.
    const blocked = anyUnknown || (entry.hostName === null ? unknownHosts.size > 0 : unknownHosts.has(entry.hostName));
    const notBefore = Math.max(
      nowMs,
      anyHostHeldBack,
      ...(entry.hostName === null ? [...heldBack.values()] : [heldBack.get(entry.hostName) ?? nowMs]),
    );
    if (entry.limitFreesAtMs !== undefined) {
      limited.push({ entry, notBefore, blocked });
      continue;
    }
    const { accepted, best } = plan(entry, notBefore, blocked);
    // A request no host can ever hold is refused when served (not a conflict): it holds nobody back.
    if (accepted.length === 0) continue;
    if (!best) {
      if (entry.hostName === null) anyUnknown = true;
      else unknownHosts.add(entry.hostName);
      continue;
    }
    if (entry.hostName === null) anyHostHeldBack = Math.max(anyHostHeldBack, best.startMs);
    else heldBack.set(entry.hostName, Math.max(heldBack.get(entry.hostName) ?? nowMs, best.startMs));
  }
  for (const { entry, notBefore, blocked } of limited) {
    if (entry.limitFreesAtMs === null || entry.limitFreesAtMs === undefined) estimates.set(entry.id, null);
    else plan(entry, Math.max(notBefore, entry.limitFreesAtMs), blocked);
  }
  return estimates;
}
