import type { GpuReconciliation } from "@/lib/attribution";
import { db } from "@/server/db";
import { log } from "@/server/log";
import type { TickConsumer, TickView } from "@/server/tick/tick-view";

const MINUTE_MS = 60_000;
/** A gap longer than this between ticks (a pause, a new leader) counts as this much, not as the whole gap. */
const MAX_STEP_MS = 5_000;

/** Who the tick's attribution names for work on a GPU nobody booked: a person's id, "login:<name>" without an account, null for nobody. */
export function runnerOf(state: GpuReconciliation): string | null {
  const withPerson = state.processes.find((process) => process.person !== null);
  if (withPerson?.person) return withPerson.person.id;
  const withLogin = state.processes.find((process) => process.login !== null);
  return withLogin?.login ? `login:${withLogin.login}` : null;
}

/** The GPUs in use without a booking at this tick, each with who the attribution names. */
export function unbookedNow(view: TickView): { gpuUuid: string; hostId: string; ranBy: string | null }[] {
  const hostOf = new Map(view.gpus.map((gpu) => [gpu.uuid, gpu.hostId]));
  const found: { gpuUuid: string; hostId: string; ranBy: string | null }[] = [];
  for (const [uuid, state] of Object.entries(view.gpuStates)) {
    if (view.activeBookings.has(uuid) || state.state !== "unbooked_use") continue;
    const hostId = hostOf.get(uuid);
    if (hostId) found.push({ gpuUuid: uuid, hostId, ranBy: runnerOf(state) });
  }
  return found;
}

interface Pending {
  gpuUuid: string;
  minuteMs: number;
  hostId: string;
  /** Seconds seen per runner this minute; the minute goes to the one seen longest. */
  seconds: Map<string | null, number>;
}

/**
 * Records use without a booking per GPU-minute with the person the live
 * view named (login, container owner, Slurm job owner), so that the usage
 * report names everyone instead of one "Not booked" lump. Leader only:
 * the tick's view is the whole fleet on every instance, one writer counts
 * each minute once. A minute is written once it has passed.
 */
export function unbookedUseRecorder(): TickConsumer {
  let pending = new Map<string, Pending>();
  let lastMs: number | null = null;
  let writing: Promise<void> = Promise.resolve();

  const write = (rows: Pending[]) => {
    writing = writing.then(async () => {
      try {
        await db().$transaction(
          rows.map((row) => {
            const [ranBy, seconds] = [...row.seconds.entries()].sort((a, b) => b[1] - a[1])[0];
            const total = [...row.seconds.values()].reduce((sum, value) => sum + value, 0);
            const minute = new Date(row.minuteMs);
            return db().unbookedUse.upsert({
              where: { gpuUuid_minute: { gpuUuid: row.gpuUuid, minute } },
              create: { gpuUuid: row.gpuUuid, minute, hostId: row.hostId, ranBy, seconds: Math.min(60, total) },
              update: { ranBy, seconds: Math.min(60, Math.max(seconds, total)) },
            });
          }),
        );
      } catch (error) {
        log.error(`could not record use without a booking: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  };

  const flushBefore = (minuteMs: number) => {
    const done = [...pending.values()].filter((row) => row.minuteMs < minuteMs);
    if (done.length === 0) return;
    for (const row of done) pending.delete(`${row.gpuUuid}\u0000${row.minuteMs}`);
    write(done);
  };

  return {
    name: "use without a booking",
    runs: "leader",
    start() {
      pending = new Map();
      lastMs = null;
    },
    consume(view) {
      const stepMs = lastMs === null ? 1000 : Math.min(MAX_STEP_MS, Math.max(0, view.nowMs - lastMs));
      lastMs = view.nowMs;
      const minuteMs = Math.floor(view.nowMs / MINUTE_MS) * MINUTE_MS;
      flushBefore(minuteMs);
      for (const gpu of unbookedNow(view)) {
        const key = `${gpu.gpuUuid}\u0000${minuteMs}`;
        const row = pending.get(key) ?? { gpuUuid: gpu.gpuUuid, minuteMs, hostId: gpu.hostId, seconds: new Map() };
        row.seconds.set(gpu.ranBy, (row.seconds.get(gpu.ranBy) ?? 0) + stepMs / 1000);
        pending.set(key, row);
      }
    },
    async stop() {
      flushBefore(Number.POSITIVE_INFINITY);
      await writing;
    },
  };
}
