import { GPU_STATE_LABELS, GPU_STATES, type GpuReconciliation, type GpuState, type ProcessAttribution, type UnseenUse } from "@/lib/domain/attribution";
import { formatGiB, formatMemory } from "@/lib/format/format";
import type { PersonRef } from "@/lib/domain/booking-types";
import type { MigDevice } from "@/lib/domain/snapshot";
import type { SlurmHoldNow } from "@/lib/domain/slurm";

/**
 * The one rule for whether a GPU is available, and the words every surface
 * uses for it (fleet view, form, schedule, display, API, CLI). A GPU is free
 * only when no booking holds it now, nothing runs on it (no process, and no
 * memory held or load that a process nvidia-smi cannot see would explain),
 * its host reports and it has no uncorrected ECC error. Isomorphic and structural: the CLI
 * bundle and the browser import it without any server module.
 */

export { GPU_STATE_LABELS, GPU_STATES, type GpuState };

/** A process as the rule needs it: its pid, and its owner's login as the agent read it. */
export interface StateProcess {
  pid: number;
  user: string | null;
}

/** Who a process belongs to, before it is compared with the GPU's booking. */
export type ProcessOwner = Omit<ProcessAttribution, "intruder">;

/** The reading as the rule needs it; null where nvidia-smi said N/A. */
export interface StateReading {
  eccErrorsUncorrected: number | null;
  processes: readonly StateProcess[];
  memoryUsedMiB: number | null;
  memoryTotalMiB: number | null;
  utilizationGpuPct: number | null;
  /** A live GPU carries these: a partitioned GPU's memory is its slices' (`isPartitioned`). */
  migMode?: string | null;
  mig?: MigDevice | null;
}

export interface GpuStateInput {
  gpu: StateReading;
  /** The host's agent reports (a GPU of an offline host shows its last values). */
  online: boolean;
  /** The booking that holds the GPU now, if any. */
  booking: { reservationId: string; bookedBy: PersonRef } | null;
  /** Attribution of the host's processes by pid; a pid missing here is known by its login only. */
  attributions: ReadonlyMap<number, ProcessOwner>;
  /**
   * A whole GPU in MIG mode (`isPartitioned`): its memory is its slices', so
   * memory without a listed process is not use of the GPU itself; only a
   * process that could not be placed on a slice, an error or its host going
   * silent show on it.
   */
  partitioned?: boolean;
  /**
   * What Slurm holds on the unit now (server/slurm/slurm-calendar.ts): its own
   * job or a reservation gpudesk did not make holds it like use without a
   * booking; the booker's job under the booking's reservation is the
   * booker's use. Null or absent off Slurm.
   */
  slurm?: SlurmHoldNow | null;
}

/** What a unit's name needs: its GPU's index and, on a slice, its MIG device. */
export interface UnitName {
  index: number;
  mig?: Pick<MigDevice, "deviceIndex" | "profile"> | null;
}

/** What the unit rules need of a GPU or a slice. */
export interface UnitFacts extends UnitName {
  migMode: string | null;
}

/**
 * A whole GPU in MIG mode. Its slices (MIG devices) are the units of
 * booking; the GPU itself is not bookable while partitioned (CUDA cannot
 * use a GPU in MIG mode except through a MIG device), is not counted among
 * the free or busy units, and shows its slices and their bookers.
 */
export function isPartitioned(gpu: UnitFacts): boolean {
  return !gpu.mig && gpu.migMode?.toLowerCase() === "enabled";
}

/** A unit as silicon: its UUID and, on a MIG slice, the UUID of the GPU it is carved from. */
export interface SiliconUnit {
  uuid: string;
  parentUuid?: string | null;
  /** A GPU split into slices now (`isPartitioned`): no unit, so its slices' bookings do not hold it. */
  partitioned?: boolean;
}

/** A live GPU or slice as silicon (a slice carries its GPU's UUID in its MIG block). */
export function siliconOf(gpu: { uuid: string; index: number; migMode?: string | null; mig?: (MigDevice & { parentUuid: string }) | null }): SiliconUnit {
  return { uuid: gpu.uuid, parentUuid: gpu.mig?.parentUuid ?? null, partitioned: isPartitioned({ index: gpu.index, migMode: gpu.migMode ?? null, mig: gpu.mig }) };
}

/**
 * Silicon is booked once: two units share silicon when they are the same
 * unit, or one is a GPU and the other a slice of it, whatever the MIG layout
 * was when each was booked. Slices of one GPU do not: a layout gives each its
 * own, and a slice of a former layout is flagged as gone rather than kept in
 * the way. The booking transaction (server/bookings/store/occupancy.ts), the
 * fleet page, the form's picker, the API's states and the CLI all ask this.
 */
export function sharesSilicon(a: SiliconUnit, b: SiliconUnit): boolean {
  return a.uuid === b.uuid || (!!a.parentUuid && a.parentUuid === b.uuid) || (!!b.parentUuid && b.parentUuid === a.uuid);
}

/**
 * The booking holds this unit: it books the unit, or silicon the unit shares
 * (its GPU, or one of its slices). A GPU split into slices is held only by
 * its own bookings (made before the split, flagged as gone): its slices'
 * bookings hold the slices, not it.
 */
export function bookingTakesUnit(booking: { gpus: readonly SiliconUnit[] }, unit: SiliconUnit): boolean {
  return booking.gpus.some((gpu) => (unit.partitioned ? gpu.uuid === unit.uuid : sharesSilicon(gpu, unit)));
}

/** A GPU or a slice that can be booked: anything but a partitioned GPU. */
export function isBookableUnit(gpu: UnitFacts): boolean {
  return !isPartitioned(gpu);
}

/** "2" for GPU 2, "0:1" for MIG device 1 of GPU 0: how NVIDIA's container toolkit names a unit (docker `device=0:1`). */
export function unitRef(gpu: UnitName): string {
  return gpu.mig ? `${gpu.index}:${gpu.mig.deviceIndex}` : String(gpu.index);
}

/** A unit as the database stores it (a Gpu row: a slice has its MIG device index and profile). */
export function storedUnit(row: { index: number; migDeviceIndex: number | null; migProfile: string | null }): UnitName {
  return { index: row.index, mig: row.migDeviceIndex === null ? null : { deviceIndex: row.migDeviceIndex, profile: row.migProfile ?? "" } };
}

/**
 * "GPU 2", "GPU 0:2 (1g.10gb)": a unit's name, the same on every surface
 * (fleet card, schedule, refusals, calendar, audit, notices, alerts, CLI,
 * usage, metrics). A slice without a known profile is "GPU 0:2".
 */
export function unitName(gpu: UnitName): string {
  if (!gpu.mig) return `GPU ${gpu.index}`;
  return gpu.mig.profile ? `GPU ${unitRef(gpu)} (${gpu.mig.profile})` : `GPU ${unitRef(gpu)}`;
}

/** The name of a unit given as refusals carry it: its GPU's index and, on a slice, its ref ("0:2") and profile. */
export function unitNameOfRef(gpuIndex: number, slice?: { ref: string; profile: string } | null): string {
  const deviceIndex = slice ? Number(slice.ref.split(":")[1]) : null;
  return unitName({ index: gpuIndex, mig: deviceIndex === null || Number.isNaN(deviceIndex) ? null : { deviceIndex, profile: slice!.profile } });
}

/** "GPUs 2, 3", "GPU 0:2 (1g.10gb)", "GPU 1, GPU 0:2 (1g.10gb)": a booking's units in one phrase. */
export function unitsPhrase(gpus: readonly UnitName[]): string {
  if (gpus.length > 1 && gpus.every((gpu) => !gpu.mig)) return `GPUs ${gpus.map((gpu) => gpu.index).join(", ")}`;
  return gpus.map(unitName).join(", ");
}

/** The booking form's address for a unit: a whole GPU by index, a slice by its ref ("0:2"). */
export function unitBookParams(hostName: string, gpu: UnitName): Record<string, string> {
  return gpu.mig ? { host: hostName, slices: unitRef(gpu) } : { host: hostName, gpus: String(gpu.index) };
}

/**
 * The compute slices of a profile ("3g.40gb" → 3, "1c.3g.71gb" → 1: one
 * compute instance of a 3-slice GPU instance) and its memory in GB, as the
 * name gives them; null for a name of another form.
 */
export function migProfileSize(profile: string): { compute: number; memoryGb: number } | null {
  const match = /^(?:(\d+)c\.)?(\d+)g\.(\d+)gb/i.exec(profile);
  if (!match) return null;
  return { compute: Number(match[1] ?? match[2]), memoryGb: Number(match[3]) };
}

/** The slice is at least this profile: as many compute slices and as much memory ("one 3g.40gb or larger"). */
export function sliceAtLeast(profile: string, wanted: string): boolean {
  const have = migProfileSize(profile);
  const want = migProfileSize(wanted);
  if (!have || !want) return profile === wanted;
  return have.compute >= want.compute && have.memoryGb >= want.memoryGb;
}

/**
 * Memory a GPU holds with no process listed before it counts as in use:
 * 1 GiB, or 10 % of a card smaller than 10 GiB, never under 256 MiB. From
 * the nvidia-smi fixtures (docs/availability.md): an idle GPU with no
 * process reports 0–116 MiB used (H100 0, P100 0, A100 38–50, RTX 3060
 * 116; the driver's own reservation is the separate memory.reserved), while
 * a job holds at least its CUDA context (160–500 MiB) and usually GiBs
 * (11,125 MiB on an H100 under MIG, 9,184 MiB on an RTX 3080 at 65 %).
 */
export const UNSEEN_MEMORY_MIB = 1024;
export const UNSEEN_MEMORY_FRACTION = 0.1;
/** Below this nothing holds a CUDA context: utilization alone never makes a GPU busy. */
export const UNSEEN_CONTEXT_MIB = 256;
/** Busy enough, with a context held, to be someone's job rather than a driver's housekeeping. */
export const UNSEEN_UTILIZATION_PCT = 10;

/** The memory threshold for a card of this size (null: size unknown, 1 GiB). */
export function unseenMemoryThresholdMiB(totalMiB: number | null): number {
  if (totalMiB === null) return UNSEEN_MEMORY_MIB;
  return Math.max(UNSEEN_CONTEXT_MIB, Math.min(UNSEEN_MEMORY_MIB, totalMiB * UNSEEN_MEMORY_FRACTION));
}

/**
 * Use of a GPU that lists no process: the job runs where nvidia-smi cannot
 * see its pid (another container or PID namespace, an agent without the
 * host's PID namespace, some vGPU setups), but its memory and load are real.
 * Memory is the steady signal: it is held for the job's whole life and read
 * at an instant. Utilization is a look-back over the last sample period, so
 * a short job that already exited still shows it; it therefore only counts
 * while a context's worth of memory is held, and a one-second spike with no
 * memory held does not flip a GPU. No state is kept between readings: the
 * alert rules hold their conditions for minutes, and a page shows what the
 * GPU does now.
 */
export function detectUnseenUse(gpu: StateReading): UnseenUse | null {
  const used = gpu.memoryUsedMiB;
  if (gpu.processes.length > 0 || used === null) return null;
  const util = gpu.utilizationGpuPct;
  const busy = util !== null && util >= UNSEEN_UTILIZATION_PCT && used >= UNSEEN_CONTEXT_MIB;
  if (used < unseenMemoryThresholdMiB(gpu.memoryTotalMiB) && !busy) return null;
  // Coarse, so that the reconciliation (sent on /live when it changes) does not change with every reading.
  const step = used >= 1024 ? 1024 : 256;
  return { memoryMiB: Math.floor(used / step) * step };
}

/** "no process visible (40 GiB held)", "(640 MiB held)": the words every surface puts after its state for unseen use. */
export function unseenUsePhrase(memoryUsedMiB: number | null): string {
  if (memoryUsedMiB === null) return "no process visible";
  const held = memoryUsedMiB >= 10 * 1024 ? formatGiB(memoryUsedMiB, 0) : formatMemory(memoryUsedMiB);
  return `no process visible (${held} held)`;
}

/**
 * A GPU's state, from its processes, its booking and its host (first match
 * wins): offline · error · split into MIG slices (`partitioned`: its slices
 * have the states, never "free" for the GPU itself) · conflict · in use without a booking · booked and
 * in use by the booker · booked and idle · free. A process is an intruder on
 * a booked GPU unless the evidence leads to the booker: a process nobody can
 * be named for is not proven to be the booker's. Use with no visible
 * process (`detectUnseenUse`) counts as use: "unbooked_use" when nobody
 * booked the GPU, "booked_in_use" when someone did (nothing shows whose it
 * is, and nothing shows it is not the booker's).
  * Slurm counts as use (`slurm`): its own running or pending job, or a
 * reservation gpudesk did not make, holds an unbooked unit ("unbooked_use")
 * until its end; the booker's job under the booking's reservation makes a
 * booked unit "booked_in_use" though no process shows (Slurm sets the job's
 * GPUs itself).
 */
export function deriveGpuState({ gpu, online, booking, attributions, partitioned = false, slurm = null }: GpuStateInput): GpuReconciliation {
  const seen = new Set<number>();
  const processes: ProcessAttribution[] = [];
  for (const process of gpu.processes) {
    if (seen.has(process.pid)) continue;
    seen.add(process.pid);
    const attribution = attributions.get(process.pid) ?? {
      pid: process.pid,
      runner: null,
      reservationId: null,
      login: process.user,
      evidence: process.user ? { kind: "login" as const, value: process.user } : { kind: "none" as const, value: null },
    };
    const intruder = booking !== null && attribution.runner?.id !== booking.bookedBy.id;
    processes.push({ ...attribution, intruder });
  }

  const whole = partitioned || (gpu.migMode !== undefined && isPartitioned({ index: 0, migMode: gpu.migMode ?? null, mig: gpu.mig }));
  const unseenUse = whole ? null : detectUnseenUse(gpu);
  // Slurm's own job or a foreign reservation holds an unbooked unit until its end; the booker's job under the booking uses a booked one.
  // A foreign hold drawn on a booked unit is left aside: Slurm keeps its jobs off the booking's reservation, and picks the GPUs itself.
  const slurmHold = slurm && (booking === null ? slurm.kind !== "booked-job" : slurm.kind === "booked-job") ? slurm : null;
  const inUse = processes.length > 0 || unseenUse !== null || slurmHold !== null;
  const ecc = gpu.eccErrorsUncorrected;
  const problem = ecc !== null && ecc > 0 ? `${ecc} uncorrected ECC error${ecc === 1 ? "" : "s"}` : null;
  const state: GpuState = !online
    ? "offline"
    : problem
      ? "error"
      : whole
        ? "partitioned"
        : processes.some((process) => process.intruder)
        ? "conflict"
        : booking === null
          ? inUse
            ? "unbooked_use"
            : "free"
          : inUse
            ? "booked_in_use"
            : "booked_idle";

  return {
    state,
    reservationId: booking?.reservationId ?? null,
    bookedBy: booking?.bookedBy ?? null,
    processes,
    problem,
    // Absent rather than null: every GPU's state is in each snapshot, and only a few are in unseen use.
    ...(unseenUse ? { unseenUse } : {}),
    ...(slurmHold && !whole ? { slurm: slurmHold } : {}),
  };
}

/** Free: nobody holds it, nothing runs there, it reports and has no error. The only state "Book" and "any N GPUs" offer. */
export function isGpuFree(state: GpuState): boolean {
  return state === "free";
}

/** Processes on the GPU that are not this person's (by the server's attribution). */
export function othersProcesses(reconciliation: Pick<GpuReconciliation, "processes">, personId: string): ProcessAttribution[] {
  return reconciliation.processes.filter((process) => process.runner?.id !== personId);
}

/** What runs on a unit, seen by one person: nothing, only their own work, or someone else's. */
export interface UseFor {
  kind: "free" | "mine" | "busy";
  /** The processes that are not theirs (none when `kind` is not "busy", or when the use shows no process). */
  others: ProcessAttribution[];
  /** Memory is held with no process listed: anyone's, so someone else's until shown otherwise. */
  unseen: boolean;
}

/**
 * "Free for me", the one rule the booking form, the fleet page and the
 * server's booking check read: a person's own unbooked job never blocks
 * (booking its unit is how they claim it); someone else's does; use with no
 * process listed (a job nvidia-smi cannot see) may be anyone's, so it
 * blocks too, with no process to name. Bookings are the caller's to weigh:
 * this is about what runs.
 */
export function useFor(reconciliation: Pick<GpuReconciliation, "processes" | "unseenUse" | "slurm">, personId: string): UseFor {
  if (reconciliation.unseenUse) return { kind: "busy", others: [], unseen: true };
  // Slurm's job or reservation holds it until its end, whoever's it is: Slurm would refuse the booking's reservation.
  if (reconciliation.slurm && reconciliation.slurm.kind !== "booked-job") return { kind: "busy", others: [], unseen: false };
  const others = othersProcesses(reconciliation, personId);
  if (others.length > 0) return { kind: "busy", others, unseen: false };
  return { kind: reconciliation.processes.length > 0 ? "mine" : "free", others, unseen: false };
}

/** The GPU can be booked now by this person without taking it from anyone: free, or running only their own unbooked work. */
export function isGpuFreeFor(reconciliation: Pick<GpuReconciliation, "state" | "processes" | "unseenUse" | "slurm">, personId: string): boolean {
  if (isGpuFree(reconciliation.state)) return true;
  return reconciliation.state === "unbooked_use" && useFor(reconciliation, personId).kind !== "busy";
}

/** Lower-case words for a state inside a sentence or a CLI column: "in use without a booking". */
export const GPU_STATE_SHORT: Record<GpuState, string> = {
  free: "free",
  booked_idle: "booked, idle",
  booked_in_use: "in use by its booker",
  unbooked_use: "in use without a booking",
  conflict: "in conflict",
  error: "error",
  offline: "offline",
  partitioned: "split into MIG slices",
};

/** "6 in use without a booking", "1 with an error": a count of GPUs in a state. */
export function countPhrase(state: GpuState, count: number): string {
  if (state === "error") return `${count} with ${count === 1 ? "an error" : "errors"}`;
  // The column words "booked, idle" would read as two items inside a comma list.
  if (state === "booked_idle") return `${count} booked and idle`;
  return `${count} ${GPU_STATE_SHORT[state]}`;
}

export interface AvailabilityCounts {
  total: number;
  free: number;
  byState: Record<GpuState, number>;
}

function emptyCounts(): AvailabilityCounts {
  return { total: 0, free: 0, byState: Object.fromEntries(GPU_STATES.map((state) => [state, 0])) as Record<GpuState, number> };
}

function add(counts: AvailabilityCounts, state: GpuState): void {
  // A split GPU is no unit: its slices are counted instead.
  if (state === "partitioned") return;
  counts.total += 1;
  counts.byState[state] += 1;
  if (isGpuFree(state)) counts.free += 1;
}

/** Counts of GPUs by state. */
export function countAvailability(states: Iterable<GpuState>): AvailabilityCounts {
  const counts = emptyCounts();
  for (const state of states) add(counts, state);
  return counts;
}

export interface FleetAvailability {
  fleet: AvailabilityCounts;
  /** By whatever host key the GPUs carry (host id or name). */
  hosts: Record<string, AvailabilityCounts>;
}

/** Per-host and fleet counts; the fleet header's "N of M free" is `fleet.free` of `fleet.total`. */
export function summarizeAvailability(gpus: Iterable<{ host: string; state: GpuState }>): FleetAvailability {
  const fleet = emptyCounts();
  const hosts: Record<string, AvailabilityCounts> = {};
  for (const gpu of gpus) {
    add(fleet, gpu.state);
    add((hosts[gpu.host] ??= emptyCounts()), gpu.state);
  }
  return { fleet, hosts };
}

/** The order the other states are named in after the free count: what blocks a booking most visibly first. */
const SUMMARY_ORDER: readonly GpuState[] = ["unbooked_use", "conflict", "booked_in_use", "booked_idle", "error", "offline"];

/** "1 of 8 free, 6 in use without a booking, 1 booked and idle": the free count, then every other state present. */
export function describeAvailability(counts: AvailabilityCounts): string {
  const rest = SUMMARY_ORDER.filter((state) => counts.byState[state] > 0).map((state) => countPhrase(state, counts.byState[state]));
  return [`${counts.free} of ${counts.total} free`, ...rest].join(", ");
}
