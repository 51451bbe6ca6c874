import { runnerName, processEvidenceLabel, type GpuReconciliation, type ProcessAttribution } from "@/lib/domain/attribution";
import { unitName, unseenUsePhrase, type UnitName } from "@/lib/domain/gpu-availability";
import { formatMemory } from "@/lib/format/format";
import { type NamedPerson, personName } from "@/lib/format/person-name";
import { formatDuration } from "@/lib/format/duration";
import type { LiveBooking, LiveGpu, LiveHost } from "@/lib/live/live";
import type { AlertConfig } from "@/server/alerts/alert-config";
import type { Condition } from "@/server/alerts/alert-engine";
import type { FleetView } from "@/server/attribution/reconcile-fleet";
import type { IdleRun } from "@/server/tick/tick-view";

export interface RuleInput {
  nowMs: number;
  view: FleetView;
  reconciliation: Readonly<Record<string, GpuReconciliation>>;
  /** Hosts that ought to report (seen before), id → name. */
  knownHosts: ReadonlyMap<string, string>;
  /** The GPUs each host had recently, host id → (uuid → index). */
  /** Each host's units that ought to report, uuid → what names the unit (`unitName`). */
  expectedGpus: ReadonlyMap<string, ReadonlyMap<string, UnitName>>;
  /** The booking holding each GPU now. */
  activeBookings: ReadonlyMap<string, LiveBooking>;
  /**
   * Every booking still running or to come (the booking feed's list): a
   * lost unit names the bookers of all of them, not only of the one that
   * holds it now, so that whoever booked a vanished slice for later hears it too.
   */
  bookings?: readonly LiveBooking[];
  config: AlertConfig;
  /**
   * Each active booking's idle run, derived from the stored minute rollups
   * (server/idle-release/): the idle-booking alert's clock, so that it
   * survives restarts and a change of leader.
   */
  idleStandings: ReadonlyMap<string, IdleRun>;
  /** Whether a subject is pending or open (memory pressure keeps a wider band then). */
  isActive: (key: string) => boolean;
}


export interface RuleOutput {
  conditions: Condition[];
  /** Scopes judged this instant; a tracked subject in one of them that is not among the conditions is good. */
  observed: Set<string>;
}

export const gpuScope = (uuid: string) => `gpu:${uuid}`;
export const hostScope = (hostId: string) => `host:${hostId}`;

/** What an alert keeps of a process: enough to tell who, what and how it was attributed. */
function processEvidence(gpu: LiveGpu, attribution: ProcessAttribution) {
  const process = gpu.processes.find((candidate) => candidate.pid === attribution.pid);
  return {
    pid: attribution.pid,
    login: attribution.login,
    person: attribution.runner,
    reservationId: attribution.reservationId,
    evidence: attribution.evidence,
    via: processEvidenceLabel(attribution),
    falseClaim: attribution.falseClaim ?? null,
    intruder: attribution.intruder,
    command: process?.command ?? process?.name ?? null,
    usedMemoryMiB: process?.usedMemoryMiB ?? null,
    startedAt: process?.startedAt ?? null,
  };
}

/** "The agent of node-a has been silent for more than 1 min" only once it has been; else the minutes seen. */
export function silentFor(hostName: string, lastSeenAt: string | null, nowMs: number, holdMs: number): string {
  if (lastSeenAt === null) return `The agent of ${hostName} has not reported since this server started`;
  const silentMs = Math.max(0, nowMs - Date.parse(lastSeenAt));
  if (silentMs >= holdMs) return `The agent of ${hostName} has been silent for more than ${formatDuration(holdMs)}`;
  return `The agent of ${hostName} has been silent for ${formatDuration(silentMs)}`;
}

function unique(ids: (string | null | undefined)[]): string[] {
  return [...new Set(ids.filter((id): id is string => typeof id === "string"))];
}

const UNKNOWN_OWNER = "an unknown owner";

function describe(process: ProcessAttribution, people: readonly NamedPerson[]): string {
  // Nothing names its owner (no login, no container, no job): "unknown (owner unknown)" said it twice.
  if (!process.runner && !process.login && process.evidence.kind === "none" && !process.falseClaim) return UNKNOWN_OWNER;
  const name = process.runner ? personName(process.runner, people) : runnerName(process);
  return process.evidence.kind === "login" && !process.falseClaim ? name : `${name} (${processEvidenceLabel(process)})`;
}

/** "bob runs", "bob and carol run", "bob, carol and 2 more run". */
function whoRuns(processes: ProcessAttribution[], people: readonly NamedPerson[]): string {
  const names = [...new Set(processes.map((process) => describe(process, people)))];
  const list = names.length <= 2 ? names.join(" and ") : `${names.slice(0, 2).join(", ")} and ${names.length - 2} more`;
  // It starts the alert's message: "An unknown owner runs …" (a login stays as it is spelled).
  return `${list.replace(new RegExp(`^${UNKNOWN_OWNER}`), "An unknown owner")} ${names.length === 1 ? "runs" : "run"}`;
}

type ConditionDetail = Pick<Condition, "userIds" | "message" | "evidence">;

/**
 * A condition whose people, message and evidence are worked out only when
 * read: the engine needs the key alone every tick, and the words matter
 * only for the few that open. Everything it reads is the instant's own
 * (readings and reconciliations are replaced, never changed in place).
 */
class JudgedCondition implements Condition {
  private detail: ConditionDetail | null = null;

  constructor(
    readonly key: string,
    readonly kind: Condition["kind"],
    readonly scope: string,
    readonly hostId: string | null,
    readonly gpuUuid: string | null,
    readonly gpuIndex: number | null,
    readonly bookingId: string | null,
    private readonly describeDetail: () => ConditionDetail,
  ) {}

  get userIds(): string[] {
    return (this.detail ??= this.describeDetail()).userIds;
  }

  get message(): string {
    return (this.detail ??= this.describeDetail()).message;
  }

  get evidence(): Record<string, unknown> {
    return (this.detail ??= this.describeDetail()).evidence;
  }
}

/** What every alert about one GPU says, worked out once for all of them and only when one is read. */
function gpuWords(gpu: LiveGpu, host: LiveHost, state: GpuReconciliation) {
  let words: { where: string; processes: ReturnType<typeof processEvidence>[]; people: NamedPerson[]; bookedByName: string } | null = null;
  return () => {
    if (words) return words;
    // Everyone this GPU's alerts name: two of them with one display name get their usernames.
    const people: NamedPerson[] = [...(state.bookedBy ? [state.bookedBy] : []), ...state.processes.flatMap((process) => (process.runner ? [process.runner] : []))];
    words = {
      // A slice by its own name ("GPU 0:2 (1g.10gb) of migbox"): its readings are its own, not its GPU's.
      where: `${unitName(gpu)} of ${host.name}`,
      processes: state.processes.map((attribution) => processEvidence(gpu, attribution)),
      people,
      bookedByName: state.bookedBy ? personName(state.bookedBy, people) : "",
    };
    return words;
  };
}

/**
 * Every rule, applied to one instant of the fleet. Pure: the hold times
 * are the engine's business; a rule only says what is wrong right now.
 */
export function evaluateRules(input: RuleInput): RuleOutput {
  const { view, reconciliation, config } = input;
  const conditions: Condition[] = [];
  const observed = new Set<string>();
  const hosts = new Map(view.hosts.map((host) => [host.id, host]));

  for (const gpu of view.gpus) {
    const host = hosts.get(gpu.hostId);
    const state = reconciliation[gpu.uuid];
    if (!host?.online || !host.gpuUuids.includes(gpu.uuid) || !state) continue;
    const scope = gpuScope(gpu.uuid);
    observed.add(scope);
    const words = gpuWords(gpu, host, state);
    const judged = (key: string, kind: Condition["kind"], bookingId: string | null, detail: () => ConditionDetail) =>
      conditions.push(new JudgedCondition(key, kind, scope, host.id, gpu.uuid, gpu.index, bookingId, detail));

    if (state.bookedBy && state.processes.some((process) => process.intruder)) {
      const bookedBy = state.bookedBy;
      judged(`conflict:${gpu.uuid}:${state.reservationId}`, "conflict", state.reservationId, () => {
        const { where, processes, people, bookedByName } = words();
        const intruders = state.processes.filter((process) => process.intruder);
        return {
          userIds: unique([bookedBy.id, ...intruders.map((process) => process.runner?.id)]),
          message: `${whoRuns(intruders, people)} on ${where}, booked by ${bookedByName}`,
          evidence: { bookedBy, reservationId: state.reservationId, processes, utilizationPct: gpu.utilizationGpuPct },
        };
      });
    }

    // Use with no visible process counts too: someone's job holds the GPU, and only an admin can find whose.
    if (!state.bookedBy && (state.processes.length > 0 || state.unseenUse)) {
      judged(`unbooked_use:${gpu.uuid}`, "unbooked_use", null, () => {
        const { where, processes, people } = words();
        if (state.processes.length === 0) {
          return {
            userIds: [],
            message: `${where} is in use without a booking, ${unseenUsePhrase(gpu.memoryUsedMiB)}`,
            evidence: { processes, utilizationPct: gpu.utilizationGpuPct, memoryUsedMiB: gpu.memoryUsedMiB, noProcessVisible: true },
          };
        }
        return {
          userIds: unique(state.processes.map((process) => process.runner?.id)),
          message: `${whoRuns(state.processes, people)} on ${where} without a booking`,
          evidence: { processes, utilizationPct: gpu.utilizationGpuPct },
        };
      });
    }

    // Idle for the hold time by the stored minutes (one rule with idle release); the engine adds no hold of its own.
    const idleRun = state.reservationId ? input.idleStandings.get(state.reservationId) : undefined;
    if (state.bookedBy && idleRun && idleRun.idleMinutes * 60_000 >= config.holdMs.idle_booking) {
      const bookedBy = state.bookedBy;
      const util = gpu.utilizationGpuPct;
      judged(`idle_booking:${gpu.uuid}:${state.reservationId}`, "idle_booking", state.reservationId, () => {
        const { where, processes, bookedByName } = words();
        return {
          userIds: [bookedBy.id],
          // A slice has no utilization: idle release judges it by process and memory (server/bookings/rules/idle-rule.ts).
          message: `${where}, booked by ${bookedByName}, ${gpu.mig ? "with no process and no memory held" : `below ${idleRun.belowPct} % utilization`} for ${formatDuration(idleRun.idleMinutes * 60_000)}`,
          evidence: { bookedBy, reservationId: state.reservationId, utilizationPct: util, belowPct: idleRun.belowPct, idleMinutes: idleRun.idleMinutes, processes },
        };
      });
    }

    const used = gpu.memoryUsedMiB;
    const total = gpu.memoryTotalMiB;
    if (used !== null && total !== null && total > 0) {
      const key = `memory_pressure:${gpu.uuid}`;
      const pct = (used / total) * 100;
      const threshold = input.isActive(key) ? config.memoryAbovePct - config.memoryHysteresisPct : config.memoryAbovePct;
      if (pct > threshold) {
        judged(key, "memory_pressure", state.reservationId, () => {
          const { where, processes } = words();
          return {
            userIds: unique([state.bookedBy?.id, ...state.processes.map((process) => process.runner?.id)]),
            message: `${where} at ${Math.round(pct)} % of its memory (${formatMemory(used)} of ${formatMemory(total)}): the next allocation may fail`,
            evidence: { memoryUsedMiB: used, memoryTotalMiB: total, usedPct: Math.round(pct * 10) / 10, abovePct: config.memoryAbovePct, processes },
          };
        });
      }
    }

    const problem = state.problem;
    if (problem) {
      judged(`gpu_health:${gpu.uuid}`, "gpu_health", state.reservationId, () => ({
        userIds: unique([state.bookedBy?.id]),
        message: `${words().where} reports ${problem}`,
        evidence: { eccErrorsUncorrected: gpu.eccErrorsUncorrected, problem },
      }));
    }
  }

  const knownHosts = new Map(input.knownHosts);
  for (const host of view.hosts) knownHosts.set(host.id, host.name);
  for (const [hostId, hostName] of knownHosts) {
    observed.add(hostScope(hostId));
    const host = hosts.get(hostId);
    const bookers = (uuids: Iterable<string>) => unique([...uuids].map((uuid) => input.activeBookings.get(uuid)?.bookedBy.id));

    if (!host?.online) {
      const uuids = host?.gpuUuids ?? [...(input.expectedGpus.get(hostId)?.keys() ?? [])];
      conditions.push({
        key: `host_offline:${hostId}`,
        kind: "host_offline",
        scope: hostScope(hostId),
        hostId,
        gpuUuid: null,
        gpuIndex: null,
        bookingId: null,
        userIds: bookers(uuids),
        // The silence measured, never the setting: an alert restored or opened early must not claim more than was seen.
        message: silentFor(hostName, host?.lastSeenAt ?? null, input.nowMs, config.holdMs.host_offline),
        evidence: { lastSeenAt: host?.lastSeenAt ?? null },
      });
      continue;
    }

    for (const [uuid, unit] of input.expectedGpus.get(hostId) ?? []) {
      const { index } = unit;
      if (host.gpuUuids.includes(uuid)) continue;
      const booking = input.activeBookings.get(uuid);
      // The booking that holds it now first, then those to come: every one of their bookers is told, with the admins.
      const booked = [...(booking ? [booking] : []), ...(input.bookings ?? []).filter((entry) => entry !== booking && entry.reservationId !== booking?.reservationId && entry.gpus.some((gpu) => gpu.uuid === uuid))];
      const bookedWords = booked.length === 0 ? "" : `, and ${booked.length === 1 ? "a booking holds" : `${booked.length} bookings hold`} it${booking ? "" : " later"}`;
      conditions.push({
        key: `gpu_lost:${uuid}`,
        kind: "gpu_lost",
        scope: hostScope(hostId),
        hostId,
        gpuUuid: uuid,
        gpuIndex: index,
        bookingId: booked[0]?.reservationId ?? null,
        userIds: unique([...bookers([uuid]), ...booked.map((entry) => entry.bookedBy.id)]),
        // A MIG slice gone means the GPU's MIG layout changed (slices destroyed).
        message: unit.mig
          ? `${unitName(unit)} is gone from ${host.name}: its GPU's MIG layout changed${bookedWords}`
          : `GPU ${index} (${uuid}) is gone from the inventory of ${host.name}${bookedWords}`,
        evidence: { uuid, index, reported: host.gpuUuids, reservationIds: booked.map((entry) => entry.reservationId) },
      });
    }
  }

  return { conditions, observed };
}
