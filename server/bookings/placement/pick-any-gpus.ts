import { detectUnseenUse, isGpuFree } from "@/lib/domain/gpu-availability";
import type { LiveGpu } from "@/lib/live/live";
import { betterChoice, type GpuCandidate, rankGpus, type RankedChoice } from "@/server/bookings/placement/rank-gpus";
import { parseTopology } from "@/server/hosts/topology";
import { AppError } from "@/server/core/errors";
import { type GpuRow, gpusOfHost, type HostRef, suggestAlternative, type Window } from "@/server/bookings/placement/booking-candidates";
import { BookingConflictError, conflictMessage } from "@/server/bookings/store/booking-conflict";
import type { Tx } from "@/server/bookings/store/booking-transaction";
import { type LiveView, liveStateNow, STARTS_NOW_MS } from "@/server/bookings/placement/gpu-in-use";
import { busyRanges, findConflicts, freeGpuIds } from "@/server/bookings/store/occupancy";
import { readRangesOfUnits } from "@/server/bookings/store/booked-units";
import type { PolicyValues } from "@/server/bookings/rules/policy";

/** Bookings over this past period count as wear, so that the same GPU is not always the one handed out. */
const WEAR_PERIOD_MS = 14 * 24 * 3600_000;

export interface AnyGpusRequest {
  count: number;
  minFreeMemoryMiB?: number;
  /** Only GPUs whose name holds this, ignoring case ("H100" takes "NVIDIA H100 80GB HBM3"). */
  model?: string;
}

/** Whether a GPU's name is of the model asked for; every GPU is when none was asked for. */
export function isOfModel(gpuName: string, model: string | undefined): boolean {
  return model === undefined || gpuName.toLowerCase().includes(model.toLowerCase());
}

export interface AnyGpusChoice {
  host: HostRef;
  gpus: GpuRow[];
  /** "2 and 3 on node-b: idle, NVLink-connected (NV4), 79 GiB free or more". */
  explanation: string;
  /** How many GPUs of the request's kind the chosen host had free for the window (the chosen ones included): placement across nodes packs by it. */
  freeUnits: number;
}

/** Free memory now, or null without a reading. */
export function freeMemoryMiB(gpu: LiveGpu | undefined): number | null {
  if (!gpu || gpu.memoryTotalMiB === null || gpu.memoryUsedMiB === null) return null;
  return gpu.memoryTotalMiB - gpu.memoryUsedMiB;
}

/**
 * Why a GPU free by the bookings cannot be handed out now; null when it can.
 * "Any N GPUs" means free by the one availability rule: whoever's job runs
 * there (even the requester's own) makes the GPU busy.
 */
function unusableNow(gpu: GpuRow, host: HostRef, live: LiveView): string | null {
  const { state, logins, unseen } = liveStateNow(live, host.id, gpu.uuid);
  if (isGpuFree(state)) return null;
  if (state === "offline") return `GPU ${gpu.index} on ${host.name} is not reporting`;
  if (state === "error") return `GPU ${gpu.index} on ${host.name} reports uncorrected ECC errors`;
  if (unseen) return `GPU ${gpu.index} on ${host.name} is in use without a booking, ${unseen}`;
  return `GPU ${gpu.index} on ${host.name} is in use by ${logins.join(", ")} without a booking`;
}

/** Hours each GPU was booked over the wear period, up to now. */
async function recentBookedHours(tx: Tx, gpuIds: string[], nowMs: number): Promise<Map<string, number>> {
  const rows = await readRangesOfUnits(tx, gpuIds, new Date(nowMs - WEAR_PERIOD_MS), new Date(nowMs));
  const hours = new Map<string, number>();
  for (const row of rows) {
    const ms = Math.min(row.endsAt.getTime(), nowMs) - Math.max(row.startsAt.getTime(), nowMs - WEAR_PERIOD_MS);
    if (ms > 0) hours.set(row.gpuId, (hours.get(row.gpuId) ?? 0) + ms / 3600_000);
  }
  return hours;
}

interface Tried {
  host: HostRef;
  all: GpuRow[];
  /** GPUs with the memory asked for. */
  eligible: GpuRow[];
  /** Of those, the ones no booking holds for the window. */
  freeByBookings: GpuRow[];
  /** Why free-by-bookings GPUs cannot be handed out now. */
  unusable: string[];
}

/**
 * "Any N GPUs": on one host, GPUs free for the whole window and, for a
 * booking that starts now, healthy and running nothing (live data, not only
 * bookings). Among the hosts that fit, the best set by rankGpus: idle first,
 * closest by topology, most free memory, least worn. Refuses with the
 * bookings in the way (409), or with what runs unbooked on the GPUs.
 */
export async function pickAnyGpus(
  tx: Tx,
  hosts: HostRef[],
  request: AnyGpusRequest,
  live: LiveView | null,
  window: Window,
  policy: PolicyValues,
): Promise<AnyGpusChoice> {
  const { count, minFreeMemoryMiB, model } = request;
  const start = new Date(window.startMs);
  const end = new Date(window.endMs);
  const startsNow = window.startMs <= window.nowMs + STARTS_NOW_MS;
  const tried: Tried[] = [];
  let best: { host: HostRef; gpus: GpuRow[]; choice: RankedChoice; freeUnits: number } | null = null;

  for (const host of hosts) {
    const all = await gpusOfHost(tx, host.id);
    const ofModel = model === undefined ? null : await gpuIdsOfModel(tx, host.id, model);
    const eligible = all.filter(
      (gpu) => (ofModel === null || ofModel.has(gpu.id)) && (minFreeMemoryMiB === undefined || (freeMemoryMiB(live?.gpus.get(gpu.uuid)) ?? -1) >= minFreeMemoryMiB),
    );
    const entry: Tried = { host, all, eligible, freeByBookings: [], unusable: [] };
    tried.push(entry);
    if (eligible.length < count) continue;
    const busy = await busyRanges(tx, eligible.map((gpu) => gpu.id), start, end);
    const free = new Set(freeGpuIds(eligible.map((gpu) => gpu.id), busy, window.startMs, window.endMs));
    entry.freeByBookings = eligible.filter((gpu) => free.has(gpu.id));
    if (entry.freeByBookings.length < count) continue;

    let usable = entry.freeByBookings;
    if (startsNow && live) {
      usable = [];
      for (const gpu of entry.freeByBookings) {
        const why = unusableNow(gpu, host, live);
        if (why) entry.unusable.push(why);
        else usable.push(gpu);
      }
    }
    const wear = await recentBookedHours(tx, usable.map((gpu) => gpu.id), window.nowMs);
    const candidates: GpuCandidate[] = usable.map((gpu) => {
      const reading = live?.gpus.get(gpu.uuid);
      return { index: gpu.index, busy: reading !== undefined && (reading.processes.length > 0 || detectUnseenUse(reading) !== null), memoryFreeMiB: freeMemoryMiB(reading), recentBookedHours: wear.get(gpu.id) ?? 0 };
    });
    const choice = rankGpus({ hostName: host.name, count, candidates, topology: host.topology ? parseTopology(host.topology) : null });
    if (choice && (!best || betterChoice(choice, best.choice))) {
      const byIndex = new Map(usable.map((gpu) => [gpu.index, gpu]));
      best = { host, gpus: choice.gpus.map((index) => byIndex.get(index) as GpuRow), choice, freeUnits: usable.length };
    }
  }
  if (best) return { host: best.host, gpus: best.gpus, explanation: best.choice.explanation, freeUnits: best.freeUnits };
  return refuse(tx, hosts, request, tried, window, policy, live);
}

async function gpuIdsOfModel(tx: Tx, hostId: string, model: string): Promise<Set<string>> {
  const rows = await tx.gpu.findMany({ where: { hostId }, select: { id: true, name: true } });
  return new Set(rows.filter((row) => isOfModel(row.name, model)).map((row) => row.id));
}

async function refuse(
  tx: Tx,
  hosts: HostRef[],
  request: AnyGpusRequest,
  tried: Tried[],
  window: Window,
  policy: PolicyValues,
  live: LiveView | null,
): Promise<never> {
  const { count, minFreeMemoryMiB, model } = request;
  const plural = count > 1;
  const memoryNote = `${model !== undefined ? ` of model ${model}` : ""}${minFreeMemoryMiB !== undefined ? ` with at least ${minFreeMemoryMiB} MiB free now` : ""}`;
  const bigEnough = tried.filter((entry) => entry.eligible.length >= count);
  if (bigEnough.length === 0) {
    const where = hosts.length === 1 ? hosts[0].name : "any host";
    const message = `${where === "any host" ? "No host has" : `${where} does not have`} ${count} GPU${plural ? "s" : ""}${memoryNote}`;
    throw new AppError("bad_request", message, { [minFreeMemoryMiB !== undefined ? "minFreeMemoryMiB" : "count"]: message });
  }
  const start = new Date(window.startMs);
  const end = new Date(window.endMs);
  const where = hosts.length === 1 ? `on ${hosts[0].name}` : "on any one host";

  // Free by the bookings, but someone runs there unbooked (or the GPU is down): a conflict with no booking to show.
  const blockedLive = bigEnough.filter((entry) => entry.freeByBookings.length >= count);
  if (blockedLive.length > 0) {
    const reasons = blockedLive.flatMap((entry) => entry.unusable);
    const first = blockedLive[0];
    const idle = first.freeByBookings.filter((gpu) => !first.unusable.some((why) => why.startsWith(`GPU ${gpu.index} on `)));
    const message =
      `${plural ? `No ${count} GPUs${memoryNote} are` : `No GPU${memoryNote} is`} free and idle ${where} now: ${reasons.slice(0, 3).join("; ")}` +
      `${reasons.length > 3 ? ` (and ${reasons.length - 3} more)` : ""}. Book for later, or wait for them.`;
    throw new BookingConflictError(message, [], { hostName: first.host.name, nextFreeAt: null, freeGpuIndices: idle.map((gpu) => gpu.index) });
  }

  // Every host that could fit is booked: explain with the host that frees up first.
  let chosen: { conflicts: Awaited<ReturnType<typeof findConflicts>>; suggestion: Awaited<ReturnType<typeof suggestAlternative>> } | null = null;
  for (const entry of bigEnough) {
    const suggestion = await suggestAlternative(tx, entry.host, entry.all, entry.eligible, count, window, policy, live);
    if (!chosen || earlier(suggestion.nextFreeAt, chosen.suggestion.nextFreeAt)) {
      chosen = { conflicts: await findConflicts(tx, entry.eligible.map((gpu) => gpu.id), start, end), suggestion };
    }
  }
  const { conflicts, suggestion } = chosen as NonNullable<typeof chosen>;
  const intro = `No ${count} GPU${plural ? "s" : ""}${memoryNote} are free ${where} from ${start.toISOString()} until ${end.toISOString()}: `;
  throw new BookingConflictError(intro + conflictMessage(conflicts, window.startMs, suggestion, plural), conflicts, suggestion);
}

function earlier(a: string | null, b: string | null): boolean {
  if (a === null) return false;
  return b === null || a < b;
}
