import type { AlertKind } from "@/lib/domain/alerts";
import type { GpuReconciliation } from "@/lib/domain/attribution";
import type { LiveBooking, LiveGpu, LiveHost } from "@/lib/live/live";
import type { AcceptedReading } from "@/server/fleet/accepted-readings";

/**
 * One instant of the fleet as every consumer of the tick sees it, built
 * once per tick by `runTick` (server/tick/tick.ts). Read-only but for
 * `findings`: a consumer that changed the rest would change it for the
 * consumers after it.
 */
export interface TickView {
  nowMs: number;
  /**
   * Every reading this instance's agents sent since the last tick, live or
   * replayed (an agent's buffer after an outage), oldest first per host:
   * the numbers the minute rollups record, beside the attribution below.
   */
  readings: readonly AcceptedReading[];
  /** Hosts and the latest reading of each GPU, after the tick's offline check. */
  hosts: readonly LiveHost[];
  gpus: readonly LiveGpu[];
  /**
   * Every GPU's state and its attribution, as reconciled this tick: who
   * booked it (`bookedBy`) and who runs there (`processes`, each with its
   * `runner` and evidence).
   */
  gpuStates: Readonly<Record<string, GpuReconciliation>>;
  /** The GPUs whose reconciliation changed since the last tick (all of them on the first). */
  changed: Readonly<Record<string, GpuReconciliation>>;
  /** Active and upcoming bookings, as the booking feed has them. */
  bookings: readonly LiveBooking[];
  /** The booking holding each GPU now, by GPU UUID; its `bookedBy` on the wire is the booking's person (bookedBy). */
  activeBookings: ReadonlyMap<string, LiveBooking>;
  /** What the consumers found this tick for those after them (empty at the start of each tick). */
  findings: TickFindings;
}

/** What the idle-booking alert needs of a booking's idle standing (server/bookings/rules/idle-state.ts): idle release's last pass, handed to the alert rules by server/main/start-tick.ts. */
export interface IdleRun {
  idleMinutes: number;
  belowPct: number;
}

/** An alert the rules hold open (server/alerts/alert-monitor.ts). */
export interface OpenAlertRef {
  id: string;
  kind: AlertKind;
  hostId: string | null;
  gpuUuid: string | null;
  reservationId: string | null;
  openedAt: number;
}

/**
 * What one consumer hands to those after it in the same tick, instead of
 * their reaching into it: each slot has one writer, which sets it in its
 * `consume`, and is read only by consumers later in the list
 * (server/main/start-tick.ts). A slot is unset where its writer does not
 * run this tick (another instance leads, a test leaves it out).
 */
export interface TickFindings {
  /** Written by the alert rules (server/alerts/): the alerts open after this tick's judgement, by subject key. Read by enforcement. */
  openAlerts?: ReadonlyMap<string, OpenAlertRef>;
}

/**
 * One step of the tick's pipeline. Consumers run in the order of the list
 * in server/main/start-tick.ts, each in its own `server/<capability>/`
 * folder; adding one is one line there.
 *
 * - `runs: "everywhere"`: on every instance (what serves this instance's
 *   viewers or records this instance's agents).
 * - `runs: "leader"`: on one instance of the cluster (what writes or acts),
 *   all such consumers under the tick's one leader job: `start` when a term
 *   of leadership begins, `stop` when it ends, `consume` only in between.
 */
export interface TickConsumer {
  readonly name: string;
  readonly runs: "everywhere" | "leader";
  /** Before the first view it gets; for the leader's consumers, at the start of each term (from what is stored). */
  start?(nowMs: number): Promise<void> | void;
  /** Called once per tick, synchronously; slow work (writes) goes on the consumer's own queue. */
  consume?(view: TickView): void;
  /** Stops and waits for the work in flight (shutdown, the end of a term). */
  stop?(): Promise<void> | void;
}

/** What the running server's routes and pages ask the tick (through server/runtime/runtime.ts). */
export interface TickState {
  /** The last reconciliation of every GPU: state, booking, who runs and by what evidence. */
  gpuStates(): Record<string, GpuReconciliation>;
  /** An agent of the host is connected and was started with --allow-enforcement. */
  agentAllowsEnforcement(hostId: string): boolean;
  /** An admin changed a host's enforcement: the enforcement consumer reads the settings again now. */
  enforcementSettingsChanged(): void;
}
