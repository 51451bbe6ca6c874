import type { GpuReconciliation } from "@/lib/domain/attribution";
import type { LiveBooking } from "@/lib/live/live";
import { activeBookingsByGpu, Reconciler, type FleetView } from "@/server/attribution/reconcile-fleet";
import type { PersonDirectory } from "@/server/attribution/user-directory";
import type { LeaderJob } from "@/server/cluster/leader-jobs";
import type { AcceptedReading } from "@/server/fleet/accepted-readings";
import { log } from "@/server/core/log";
import type { TickConsumer, TickView } from "@/server/tick/tick-view";
import type { SlurmCalendar } from "@/lib/domain/slurm";

/** What the tick reads of the live fleet (server/fleet/fleet-state.ts). */
export interface TickFleet {
  checkOffline(): void;
  current(): FleetView;
}

/** What the tick keeps of the reconciliation: the last states, and what a run changed. */
export interface TickReconciler {
  run(view: FleetView, nowMs: number, active: ReadonlyMap<string, LiveBooking>): Record<string, GpuReconciliation>;
  current(): Record<string, GpuReconciliation>;
}

export interface TickOptions {
  fleet: TickFleet;
  /** Active and upcoming bookings (server/bookings/views/booking-feed.ts). */
  bookings: { current(): readonly LiveBooking[] };
  /** This instance's agents' readings since the last tick (server/fleet/accepted-readings.ts); none by default. */
  readings?: { take(): readonly AcceptedReading[] };
  /** Login ↔ person for attribution (server/attribution/user-directory.ts). */
  directory: PersonDirectory;
  /** Slurm's jobs and foreign reservations on the calendar, held by the availability rule (none without Slurm). */
  slurm?: { current(): SlurmCalendar };
  /** In the order they see each tick. */
  consumers: readonly TickConsumer[];
  now?: () => number;
  /** Stands in for the reconciliation (tests of one consumer with states of their choosing). */
  reconciler?: TickReconciler;
}

/**
 * The once-a-second loop: `runTick(now)` checks which hosts went silent,
 * reconciles every GPU (state, attributions) against the bookings, builds
 * the tick's view once (with the readings of the second) and hands it to
 * each consumer in order. The
 * consumers that write or act (`runs: "leader"`) take part only while
 * `leaderJob` runs (on one instance of a cluster); the others always.
 */
export class Tick {
  private readonly consumers: readonly TickConsumer[];
  private readonly reconciler: TickReconciler;
  private readonly now: () => number;
  private leading = false;
  /** Names of the steps failing now: one report per spell of failure, not one per second. */
  private readonly failing = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly options: TickOptions) {
    this.consumers = options.consumers;
    this.leaderJob.name = listed(this.consumers.filter((consumer) => consumer.runs === "leader").map((consumer) => consumer.name));
    this.now = options.now ?? Date.now;
    this.reconciler = options.reconciler ?? new Reconciler(() => options.bookings.current(), options.directory, options.slurm && (() => options.slurm!.current()));
  }

  /** One tick at `nowMs`; returns its view, or null when it could not be built (reported once, the consumers wait for the next). */
  runTick(nowMs: number): TickView | null {
    const reconciled = this.guard("reconciliation", () => {
      this.options.fleet.checkOffline();
      const { hosts, gpus } = this.options.fleet.current();
      const bookings = this.options.bookings.current();
      const activeBookings = activeBookingsByGpu(bookings, nowMs, gpus);
      const changed = this.reconciler.run({ hosts, gpus }, nowMs, activeBookings);
      return { nowMs, hosts, gpus, gpuStates: this.reconciler.current(), changed, bookings, activeBookings };
    });
    if (!reconciled) return null;
    // Taken once the view stands: a tick that could not be built leaves them to the next.
    const view: TickView = { ...reconciled, readings: this.options.readings?.take() ?? [], findings: {} };
    for (const consumer of this.consumers) {
      if (!consumer.consume || (consumer.runs === "leader" && !this.leading)) continue;
      this.guard(consumer.name, () => consumer.consume!(view));
    }
    return view;
  }

  /** The last reconciliation of every GPU: what a new viewer, a booking check and the API get. */
  gpuStates(): Record<string, GpuReconciliation> {
    return this.reconciler.current();
  }

  /**
   * Starts the consumers that run everywhere, then a tick every `tickMs`,
   * half an interval after the clock's whole intervals. Agents sample on the
   * whole second of their clock (host/agent/agent-runner.ts), so a fleet's
   * readings arrive together just after it: a tick in that burst held up
   * its ingestion and the delta that waits for its last reading; half a
   * second later the burst is in and the tick sees a whole second of it.
   */
  async start(tickMs = 1000): Promise<void> {
    for (const consumer of this.consumers) if (consumer.runs === "everywhere") await consumer.start?.(this.now());
    const schedule = () => {
      this.timer = setTimeout(() => {
        this.runTick(this.now());
        if (this.timer) schedule();
      }, delayToPhase(Date.now(), tickMs));
      this.timer.unref();
    };
    schedule();
  }

  /** Stops the ticks and the consumers that run everywhere (the leader job is stopped by its cluster). */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const consumer of [...this.consumers].reverse()) if (consumer.runs === "everywhere") await consumer.stop?.();
  }

  /**
   * Every leader-only consumer as one job (server/cluster/leader-jobs.ts):
   * each term starts them in order from what is stored, and ends by
   * stopping them in reverse order after the last tick they saw.
   */
  readonly leaderJob: LeaderJob = {
    // Its consumers, as /api/health lists the jobs running: "alerts, enforcement and webhook deliveries".
    name: "",
    start: async () => {
      const leaders = this.consumers.filter((consumer) => consumer.runs === "leader");
      const started: TickConsumer[] = [];
      try {
        for (const consumer of leaders) {
          await consumer.start?.(this.now());
          started.push(consumer);
        }
      } catch (error) {
        for (const consumer of started.reverse()) await consumer.stop?.();
        throw error;
      }
      this.leading = true;
      return async () => {
        this.leading = false;
        for (const consumer of [...leaders].reverse()) {
          try {
            await consumer.stop?.();
          } catch (error) {
            log.error(`could not stop ${consumer.name}: ${describe(error)}`);
          }
        }
      };
    },
  };

  private guard<T>(step: string, work: () => T): T | null {
    try {
      const result = work();
      this.failing.delete(step);
      return result;
    } catch (error) {
      if (!this.failing.has(step)) log.error(`tick: ${step} failed: ${describe(error, true)}`);
      this.failing.add(step);
      return null;
    }
  }
}

function listed(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? "none") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

function describe(error: unknown, stack = false): string {
  return error instanceof Error ? (stack ? (error.stack ?? error.message) : error.message) : String(error);
}

/**
 * Milliseconds from `nowMs` to the next tick: half an interval past a whole
 * interval of the clock. A point less than a tenth of an interval away is
 * the one just ticked (a timer fires up to a millisecond early): the next
 * one is taken, so that no tick runs twice.
 */
export function delayToPhase(nowMs: number, tickMs: number): number {
  const phaseMs = tickMs / 2;
  const delay = (((phaseMs - nowMs) % tickMs) + tickMs) % tickMs;
  return delay < tickMs / 10 ? delay + tickMs : delay;
}
