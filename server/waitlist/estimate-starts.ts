import { chooseNodes, type Fabric } from "@/server/bookings/placement/place-nodes";
import { type BusyRange, freeGpuIds, nearestFreeStart } from "@/server/bookings/store/occupancy";

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
  /** Its fabric, where known: "any N nodes" is placed on one, as the grant places it. */
  fabric?: Fabric | null;
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
  /**
   * A request across nodes: each node needs a host of its own at the same
   * start, `count` GPUs on it (`hostName`: that host, null: any it accepts).
   * `count` and `hostName` of the entry are then unused; it holds back every
   * host it could take, as "any host" does.
   */
  nodes?: { hostName: string | null; count: number }[];
  /** The GPUs it may take (of its model); absent: every GPU of a host. */
  gpuIds?: ReadonlySet<string>;
}

/**
 * The earliest start at or after `fromMs` where every node of a request
 * across nodes has a host of its own with its GPUs free for the whole
 * window, and those GPUs (node by node, named hosts first). Only `fromMs`
 * and the ends of busy ranges can be that instant.
 */
function nearestNodesStart(
  nodes: { hostName: string | null; count: number }[],
  hosts: EstimateHost[],
  busy: BusyRange[],
  fromMs: number,
  durationMs: number,
  latestStartMs: number,
): { startMs: number; gpuIds: string[]; hostNames: string[] } | null {
  const candidates = [fromMs, ...busy.map((range) => range.endMs).filter((end) => end > fromMs)].sort((a, b) => a - b);
  const ordered = [...nodes].sort((a, b) => (a.hostName === null ? 1 : 0) - (b.hostName === null ? 1 : 0));
  // "Any N nodes" of one size: the grant's own choice (chooseNodes), in what-if mode on the planned occupancy.
  const anyNodes = nodes.every((node) => node.hostName === null && node.count === nodes[0].count) ? nodes[0].count : null;
  for (const startMs of candidates) {
    if (startMs > latestStartMs) return null;
    if (anyNodes !== null) {
      const fitting = hosts
        .map((host) => ({ name: host.name, fabric: host.fabric ?? null, free: freeGpuIds(host.gpuIds, busy, startMs, startMs + durationMs) }))
        .filter((host) => host.free.length >= anyNodes)
        .map((host) => ({ ...host, freeUnits: host.free.length }));
      const choice = chooseNodes(fitting, nodes.length, anyNodes);
      if (choice) return { startMs, gpuIds: choice.parts.flatMap((host) => host.free.slice(0, anyNodes)), hostNames: choice.parts.map((host) => host.name) };
      continue;
    }
    const used = new Set<string>();
    const gpuIds: string[] = [];
    for (const node of ordered) {
      const host = hosts.find((candidate) => !used.has(candidate.name) && (node.hostName === null || candidate.name === node.hostName) && freeGpuIds(candidate.gpuIds, busy, startMs, startMs + durationMs).length >= node.count);
      if (!host) break;
      used.add(host.name);
      gpuIds.push(...freeGpuIds(host.gpuIds, busy, startMs, startMs + durationMs).slice(0, node.count));
    }
    if (used.size === nodes.length) return { startMs, gpuIds, hostNames: [...used] };
  }
  return null;
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
    const own = (host: EstimateHost) => (entry.gpuIds ? { ...host, gpuIds: host.gpuIds.filter((id) => entry.gpuIds!.has(id)) } : host);
    const allowed = hosts.filter((host) => !entry.allowedHosts || entry.allowedHosts.includes(host.name)).map(own);
    const durationMs = entry.durationMinutes * 60_000;
    if (entry.nodes) {
      const nodes = entry.nodes;
      const accepted = allowed.filter((host) => nodes.some((node) => (node.hostName === null || node.hostName === host.name) && host.gpuIds.length >= node.count));
      const found = blocked || accepted.length < nodes.length ? null : nearestNodesStart(nodes, accepted, taken, notBefore, durationMs, nowMs + horizonMs);
      estimates.set(entry.id, found?.startMs ?? null);
      // Every part holds its GPUs from the one start: later requests plan around them all.
      if (found) for (const gpuId of found.gpuIds) taken.push({ gpuId, startMs: found.startMs, endMs: found.startMs + durationMs });
      return { accepted, best: found && { startMs: found.startMs } };
    }
    const accepted = allowed.filter((host) => (entry.hostName === null || host.name === entry.hostName) && host.gpuIds.length >= entry.count);
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
    return { accepted, best: best && { startMs: best.startMs } };
  };

  for (const entry of entries) {
    // The hosts it competes for: its one host, its named parts' hosts, or any (null).
    const wanted = entry.nodes ? (entry.nodes.every((node) => node.hostName !== null) ? entry.nodes.map((node) => node.hostName as string) : null) : entry.hostName === null ? null : [entry.hostName];
    // An earlier request that competes and has no estimate holds this one back for as long: no estimate either.
    const blocked = anyUnknown || (wanted === null ? unknownHosts.size > 0 : wanted.some((host) => unknownHosts.has(host)));
    const notBefore = Math.max(nowMs, anyHostHeldBack, ...(wanted === null ? [...heldBack.values()] : wanted.map((host) => heldBack.get(host) ?? nowMs)));
    if (entry.limitFreesAtMs !== undefined) {
      limited.push({ entry, notBefore, blocked });
      continue;
    }
    const { accepted, best } = plan(entry, notBefore, blocked);
    // A request no host can ever hold is refused when served (not a conflict): it holds nobody back.
    if (accepted.length === 0) continue;
    if (!best) {
      if (wanted === null) anyUnknown = true;
      else for (const host of wanted) unknownHosts.add(host);
      continue;
    }
    if (wanted === null) anyHostHeldBack = Math.max(anyHostHeldBack, best.startMs);
    else for (const host of wanted) heldBack.set(host, Math.max(heldBack.get(host) ?? nowMs, best.startMs));
  }
  for (const { entry, notBefore, blocked } of limited) {
    if (entry.limitFreesAtMs === null || entry.limitFreesAtMs === undefined) estimates.set(entry.id, null);
    else plan(entry, Math.max(notBefore, entry.limitFreesAtMs), blocked);
  }
  return estimates;
}
