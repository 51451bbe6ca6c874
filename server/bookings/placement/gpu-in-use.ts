import type { GpuReconciliation } from "@/lib/domain/attribution";
import { type GpuState, isGpuFree, unitName, unitRef, unseenUsePhrase, useFor } from "@/lib/domain/gpu-availability";
import type { LiveGpu } from "@/lib/live/live";
import { personName } from "@/lib/format/person-name";
import type { BusyGpu, BusyGpuProcess, GpuInUseBody } from "@/lib/domain/booking-types";
import { stateWithoutBooking } from "@/lib/domain/state-without-booking";
import { AppError } from "@/server/core/errors";

/** A booking starting this soon is "now": what runs on the GPUs at this moment decides. */
export const STARTS_NOW_MS = 5 * 60_000;

/** What the server sees on the GPUs right now; `online` is false for GPUs whose host stopped reporting. */
export interface LiveView {
  gpus: Map<string, LiveGpu>;
  onlineHostIds: Set<string>;
  /** The reconciler's last word per GPU (who each process belongs to); empty where the server does not reconcile. */
  states: Record<string, GpuReconciliation>;
}

/**
 * A GPU's state now by the one rule, leaving bookings aside (the booking
 * paths check those in the database): a GPU without a reading is offline.
 */
export function liveStateNow(live: LiveView, hostId: string, uuid: string): { state: GpuState; logins: string[]; unseen: string | null } {
  const reading = live.gpus.get(uuid);
  if (!reading) return { state: "offline", logins: [], unseen: null };
  const { state, processes, unseenUse } = stateWithoutBooking(reading, live.onlineHostIds.has(hostId));
  return {
    state,
    logins: [...new Set(processes.map((process) => process.login ?? `pid ${process.pid}`))],
    unseen: unseenUse ? unseenUsePhrase(reading.memoryUsedMiB) : null,
  };
}

/** For a window that starts now: drops the GPUs that are not free by the one rule (what runs, errors, silence). */
export function freeNow<T extends { uuid: string }>(gpus: T[], hostId: string, live: LiveView | null, window: { startMs: number; nowMs: number }): T[] {
  if (!live || window.startMs > window.nowMs + STARTS_NOW_MS) return gpus;
  return gpus.filter((gpu) => isGpuFree(liveStateNow(live, hostId, gpu.uuid).state));
}

/**
 * Named GPUs of a host that stopped reporting, where its last report listed
 * work, for a booking from now: what the server last saw there is stale (a
 * process it listed may be long gone, or a new one may run), so the answer
 * is that the host is offline, never "someone else's work runs" (and "book
 * anyway" does not help: nothing can be checked there now). A host whose
 * last report listed nothing on them is booked as before; a booking for
 * later is left to the calendar.
 */
export function refuseOfflineHost(live: LiveView, host: { id: string; name: string }): void {
  if (live.onlineHostIds.has(host.id)) return;
  const message = `${host.name} is offline: it has not reported lately, so nobody can tell what runs on its GPUs or use them now. Book them for a later time, or pick GPUs on a host that reports.`;
  throw new AppError("conflict", message, { host: `${host.name} is offline` });
}

/**
 * The GPUs among `gpus` on which someone other than `personId` runs now.
 * Ownership is the server's attribution (booking variable, job, login);
 * a process it could not attribute to the person counts as someone else's.
 * The person's own unbooked job never blocks: booking its GPU claims it.
 * Use with no process listed (memory held by a job nvidia-smi cannot see)
 * is anyone's, so it counts as someone else's, with no process to name.
 */
export function findBusyGpus(gpus: readonly { index: number; uuid: string }[], hostName: string, live: LiveView, personId: string): BusyGpu[] {
  const busy: BusyGpu[] = [];
  for (const gpu of gpus) {
    const reading = live.gpus.get(gpu.uuid);
    if (!reading) continue;
    const reconciliation = stateWithoutBooking(reading, true, live.states[gpu.uuid]);
    const named = { hostName, gpuIndex: gpu.index, gpuUuid: gpu.uuid, unit: unitName(reading), ...(reading.mig ? { slice: { ref: unitRef(reading), profile: reading.mig.profile } } : {}) };
    const use = useFor(reconciliation, personId);
    if (use.kind !== "busy") continue;
    if (use.unseen) {
      busy.push({ ...named, processes: [], unseenMemoryMiB: reading.memoryUsedMiB });
      continue;
    }
    const others = use.others;
    const owners = others.map((process) => process.runner).filter((person) => person !== null);
    busy.push({
      ...named,
      processes: others.map((process): BusyGpuProcess => {
        const raw = reading.processes.find((candidate) => candidate.pid === process.pid);
        return {
          pid: process.pid,
          owner: process.runner,
          login: process.login,
          ownerName: process.runner ? personName(process.runner, owners) : (process.login ?? `pid ${process.pid}`),
          command: raw?.command ?? null,
          startedAt: raw?.startedAt ?? null,
        };
      }),
    });
  }
  return busy;
}

function describeProcess(process: BusyGpuProcess): string {
  const command = process.command ? `: ${process.command.length > 60 ? `${process.command.slice(0, 59)}…` : process.command}` : "";
  return `${process.ownerName}${command}`;
}

/** "GPU 0:2 (1g.10gb) on node-a runs Bob Member: python train.py": one clause per busy unit. */
export function describeBusyGpus(busy: readonly BusyGpu[]): string {
  return busy
    .map((gpu) => {
      if (gpu.processes.length === 0) return `${gpu.unit} on ${gpu.hostName} is in use with ${unseenUsePhrase(gpu.unseenMemoryMiB ?? null)}`;
      const shown = gpu.processes.slice(0, 2).map(describeProcess).join("; ");
      const more = gpu.processes.length > 2 ? ` (and ${gpu.processes.length - 2} more)` : "";
      return `${gpu.unit} on ${gpu.hostName} runs ${shown}${more}`;
    })
    .join(". ");
}

/**
 * A 409 for GPUs someone else is using without a booking: booking them in
 * good faith would make their job an "intruder". Carries each GPU, the
 * owners and the commands as data; `allowBusy: true` books anyway.
 */
export class GpuInUseError extends AppError {
  constructor(readonly busyGpus: BusyGpu[]) {
    super(
      "gpu_in_use",
      `${describeBusyGpus(busyGpus)}. Someone else's work runs there now: choose free GPUs, or book anyway (allowBusy) if you agreed with them.`,
    );
  }

  override toJSON(): GpuInUseBody {
    return { error: { code: "gpu_in_use", message: this.message, busyGpus: this.busyGpus } };
  }
}

/** What the audit log keeps of work a booking was made over. */
export function busyGpusForAudit(busy: readonly BusyGpu[]) {
  return busy.map((gpu) => ({
    index: gpu.gpuIndex,
    uuid: gpu.gpuUuid,
    unit: gpu.unit,
    processes: gpu.processes.map((process) => ({ pid: process.pid, owner: process.owner?.username ?? null, login: process.login, command: process.command })),
  }));
}

/** Live readings that booking uses: free memory, running processes, hosts reporting (no history), and whose processes they are. */
export interface LiveGpuSource {
  current(): { gpus: LiveGpu[]; hosts: { id: string; online: boolean }[] };
  /** The reconciler's last word per GPU; absent where the server does not reconcile (then nobody's process is known as theirs). */
  gpuStates?(): Record<string, GpuReconciliation>;
}

/** The live readings as the booking checks read them; null where the caller has no fleet (tests, the CLI). */
export function liveView(fleet: LiveGpuSource | undefined): LiveView | null {
  if (!fleet) return null;
  const snapshot = fleet.current();
  return {
    gpus: new Map(snapshot.gpus.map((gpu) => [gpu.uuid, gpu])),
    onlineHostIds: new Set(snapshot.hosts.filter((host) => host.online).map((host) => host.id)),
    states: fleet.gpuStates?.() ?? {},
  };
}
