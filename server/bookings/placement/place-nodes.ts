import { fabricKey, parseStoredFabric } from "@/lib/domain/fabric";
import { AppError } from "@/server/core/errors";
import type { GpuRow, HostRef, Window } from "@/server/bookings/placement/booking-candidates";
import type { LiveView } from "@/server/bookings/placement/gpu-in-use";
import { pickAnyGpus } from "@/server/bookings/placement/pick-any-gpus";
import { BookingConflictError } from "@/server/bookings/store/booking-conflict";
import type { Tx } from "@/server/bookings/store/booking-transaction";
import type { EffectiveLimits } from "@/server/bookings/rules/check-limits";
import { refuseHost } from "@/server/bookings/rules/check-limits";
import type { PolicyValues } from "@/server/bookings/rules/policy";

/** A host's fabric as placement compares them (lib/domain/fabric.ts). */
export interface Fabric {
  key: string;
  said: string;
}

/** A host that can take one node of the request for the whole window. */
export interface NodeCandidate {
  name: string;
  /** Units of the request's kind free on it for the window (more than one node's, often). */
  freeUnits: number;
  fabric: Fabric | null;
}

/** Which hosts "any N nodes" takes, and why. */
export interface NodesChoice<T extends NodeCandidate> {
  parts: T[];
  /** The fabric they share; null when no one fabric has N of them (then `crossFabric` says whether they span known fabrics). */
  fabric: Fabric | null;
  /** Another fabric also had N of them: this one is the smallest. */
  smallestOfSeveral: boolean;
}

/**
 * The one rule by which "any N nodes" chooses among the hosts that can take
 * a node: the grant (pickAnyNodes, below) and the queue's estimate
 * (server/waitlist/estimate-starts.ts, in what-if mode on planned
 * occupancy) both call it, so that the estimate names the hosts the grant
 * will take.
 *
 * - One fabric where any has N of them: the smallest such fabric, so that
 *   larger ones stay whole for larger jobs. Else all of them, with a warning.
 * - Among those, packing (issue 48, item 10): first the hosts with room
 *   for the most further nodes like this one (floor(free / per node)), then
 *   the fewest free units left, then by name. A booking across nodes needs
 *   distinct hosts, so the nodes go where the room is deepest: ten 2 × 4
 *   requests over three free 8-GPU hosts make three bookings (a, b; then c
 *   and a; then b and c), where "first by name" or "tightest first" made two
 *   (a and b twice, leaving c alone). Among hosts with the same room left the
 *   tightest fit wins, so a host is filled before another is broken into.
 */
export function chooseNodes<T extends NodeCandidate>(fitting: T[], nodes: number, perNode: number): NodesChoice<T> | null {
  if (fitting.length < nodes) return null;
  const order = (list: T[]) =>
    [...list].sort(
      (a, b) =>
        Math.floor((b.freeUnits - perNode) / perNode) - Math.floor((a.freeUnits - perNode) / perNode) ||
        a.freeUnits - b.freeUnits ||
        a.name.localeCompare(b.name),
    );
  const groups = new Map<string, { fabric: Fabric; hosts: T[] }>();
  for (const host of fitting) {
    if (!host.fabric) continue;
    const group = groups.get(host.fabric.key) ?? { fabric: host.fabric, hosts: [] };
    group.hosts.push(host);
    groups.set(host.fabric.key, group);
  }
  const enough = [...groups.values()].filter((group) => group.hosts.length >= nodes).sort((a, b) => a.hosts.length - b.hosts.length || a.fabric.key.localeCompare(b.fabric.key));
  if (enough.length > 0) return { parts: order(enough[0].hosts).slice(0, nodes), fabric: enough[0].fabric, smallestOfSeveral: enough.length > 1 };
  return { parts: order(fitting).slice(0, nodes), fabric: null, smallestOfSeveral: false };
}

/** Each host's fabric key (lib/domain/fabric.ts), where known. */
export async function fabricsOf(tx: Tx, hostIds: string[]): Promise<Map<string, Fabric>> {
  const rows = await tx.host.findMany({ where: { id: { in: hostIds } }, select: { id: true, fabric: true, fabricLabel: true } });
  const keys = new Map<string, Fabric>();
  for (const row of rows) {
    const key = fabricKey(parseStoredFabric(row.fabric), row.fabricLabel);
    if (key) keys.set(row.id, key);
  }
  return keys;
}

/** One node's share, chosen inside the transaction. */
export interface ChosenPart {
  host: HostRef;
  gpus: GpuRow[];
  /** Why these GPUs, where gpudesk picked them. */
  explanation?: string;
}

/**
 * What to tell the booker when the parts are not on one known fabric: NCCL
 * between fabrics goes over whatever joins them, often plain Ethernet.
 */
export function fabricWarnings(parts: ChosenPart[], fabrics: Map<string, Fabric>): string[] {
  const keys = new Set(parts.map((part) => fabrics.get(part.host.id)?.key ?? null));
  if (keys.size <= 1) return [];
  const where = parts.map((part) => `${part.host.name} on ${fabrics.get(part.host.id)?.said ?? "an unknown fabric"}`).join(", ");
  return [`The nodes are not on one fabric (${where}): NCCL between them goes over whatever joins the fabrics, often far slower than within one`];
}

/**
 * "Any N nodes": the hosts with `gpusPerNode` GPUs free for the window (of
 * the model, by the same rule as "any N GPUs" on one host), chosen by
 * chooseNodes. Refuses whole, naming why hosts could not take a part.
 */
export async function pickAnyNodes(
  tx: Tx,
  hosts: HostRef[],
  nodes: number,
  gpusPerNode: number,
  model: string | undefined,
  limits: EffectiveLimits,
  live: LiveView | null,
  window: Window,
  policy: PolicyValues,
): Promise<{ parts: ChosenPart[]; explanation: string; warnings: string[] }> {
  const fitting: (ChosenPart & { freeUnits: number })[] = [];
  const why: string[] = [];
  for (const host of hosts) {
    const refusal = refuseHost(limits, host.name, window.startMs, window.endMs);
    if (refusal) {
      why.push(refusal.message);
      continue;
    }
    try {
      const picked = await pickAnyGpus(tx, [host], { count: gpusPerNode, model }, live, window, policy);
      fitting.push({ host: picked.host, gpus: picked.gpus, explanation: picked.explanation, freeUnits: picked.freeUnits });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      why.push(error.message);
    }
  }
  const what = `${gpusPerNode} free${model ? ` ${model}` : ""} GPU${gpusPerNode > 1 ? "s" : ""}`;
  const when = `from ${new Date(window.startMs).toISOString()} until ${new Date(window.endMs).toISOString()}`;
  const fabrics = await fabricsOf(tx, fitting.map((part) => part.host.id));
  const choice = chooseNodes(
    fitting.map((part) => ({ ...part, name: part.host.name, fabric: fabrics.get(part.host.id) ?? null })),
    nodes,
    gpusPerNode,
  );
  if (!choice) {
    const found = fitting.length === 0 ? "No host has" : `Only ${fitting.length} host${fitting.length > 1 ? "s have" : " has"}`;
    const message = `${found} ${what} ${when}; ${nodes} nodes asked for, nothing was booked` + (why.length > 0 ? `. ${why.slice(0, 4).join(" ")}` : "");
    throw new BookingConflictError(message, [], { hostName: null, nextFreeAt: null, freeGpuIndices: [] });
  }
  const parts: ChosenPart[] = choice.parts.map(({ host, gpus, explanation }) => ({ host, gpus, explanation }));
  const details = parts.map((part) => part.explanation).join("; ");
  const names = parts.map((part) => part.host.name).join(" and ");
  if (choice.fabric) {
    const smallest = choice.smallestOfSeveral ? `, the smallest fabric with ${nodes} such nodes (larger ones stay whole for larger jobs)` : "";
    return { parts, explanation: `${names}: ${what} each, all on ${choice.fabric.said}${smallest}. ${details}`, warnings: [] };
  }
  const known = [...fabrics.values()].length > 0;
  const explanation = `${names}: ${nodes} hosts with ${what} each, where the most room is left${known ? `; no one fabric has ${nodes} of them` : "; their fabric is not known"}. ${details}`;
  return { parts, explanation, warnings: fabricWarnings(parts, fabrics) };
}
