import * as z from "zod";
import { compileFastCheck, UNSURE } from "@/lib/domain/fast-check";

/**
 * The agent's snapshot: one reading of one host. This shape is a public
 * contract (`gpudesk agent --once --json` prints it, other tools read it), so
 * fields are only ever added, never renamed. A value the GPU does not report
 * is `null`, never 0.
 */

const shortText = (max: number) => z.string().max(max);
/** A finite reading within what any GPU can report, or null when it reports none. */
const reading = (min: number, max: number) => z.number().finite().min(min).max(max).nullable();

// Plausible bounds, wide enough for any GPU sold today and the next few
// generations; a value outside them is a broken driver or a forged reading,
// and the usage history must never hold it.
const MAX_MEMORY_MIB = 16 * 1024 * 1024; // 16 TiB
const MAX_POWER_W = 10_000;
const MAX_CLOCK_MHZ = 10_000;
/** memory.used may exceed memory.total by rounding (both are whole MiB, read a moment apart): 1 % plus 1 MiB. */
const MEMORY_USED_TOLERANCE = 0.01;

export const hostInfoSchema = z.object({
  name: shortText(253).min(1),
  driverVersion: shortText(64).nullable(),
  cudaVersion: shortText(32).nullable(),
});

/**
 * A MIG device as a unit of its own (ARCHITECTURE: "the unit of booking is a
 * GPU, or a MIG device on a GPU in MIG mode"). A slice is an entry of
 * `gpus` with its MIG UUID as `uuid`, its parent's index as `index`, its own
 * memory, utilization null (nvidia-smi reports none per MIG device) and this
 * block; its parent stays in `gpus` too (temperature, power, ECC), marked by
 * `migMode` "Enabled" and bookable no more.
 */
export const migDeviceSchema = z.object({
  /** UUID of the GPU the slice is carved from. */
  parentUuid: shortText(128).min(1),
  /** "3g.40gb", or "1c.3g.71gb" for one of several compute instances of a GPU instance (from `nvidia-smi -L`). */
  profile: shortText(32),
  gpuInstanceId: z.number().int().min(0).max(1023),
  computeInstanceId: z.number().int().min(0).max(1023),
  /** The MIG device index within its GPU (`-L`'s "Device N"): the container toolkit's `GPU:N`. */
  deviceIndex: z.number().int().min(0).max(1023),
});

export const gpuSampleSchema = z
  .object({
    index: z.number().int().min(0).max(1023),
    uuid: shortText(128).min(1),
    name: shortText(128),
    pciBusId: shortText(64).nullable(),
    memoryTotalMiB: reading(0, MAX_MEMORY_MIB),
    memoryUsedMiB: reading(0, MAX_MEMORY_MIB),
    utilizationGpuPct: reading(0, 100),
    utilizationMemoryPct: reading(0, 100),
    temperatureC: reading(-50, 150),
    powerDrawW: reading(0, MAX_POWER_W),
    powerLimitW: reading(0, MAX_POWER_W),
    /** nvidia-smi documents that fan speed "may exceed 100 %" on some boards. */
    fanSpeedPct: reading(0, 200),
    smClockMHz: reading(0, MAX_CLOCK_MHZ),
    pstate: shortText(8).nullable(),
    /** "Enabled" / "Disabled" as nvidia-smi says it; null where MIG does not exist. */
    migMode: shortText(32).nullable(),
    eccErrorsUncorrected: reading(0, Number.MAX_SAFE_INTEGER),
    /** Set on a MIG device (a slice); absent or null on a whole GPU, and from agents older than slices. */
    mig: migDeviceSchema.nullable().optional(),
  })
  .superRefine((gpu, ctx) => {
    if (memoryAboveTotal(gpu)) {
      ctx.addIssue({ code: "custom", path: ["memoryUsedMiB"], message: `memory used (${gpu.memoryUsedMiB} MiB) is above the total (${gpu.memoryTotalMiB} MiB)` });
    }
  });

function memoryAboveTotal({ memoryUsedMiB: used, memoryTotalMiB: total }: { memoryUsedMiB: number | null; memoryTotalMiB: number | null }): boolean {
  return used !== null && total !== null && used > total * (1 + MEMORY_USED_TOLERANCE) + 1;
}

export const processInfoSchema = z.object({
  gpuUuid: shortText(128),
  pid: z.number().int().min(0).max(2 ** 32),
  name: shortText(1024),
  usedMemoryMiB: reading(0, MAX_MEMORY_MIB),
  /** Login of the process owner, from the host's passwd database (or the uid as text). */
  user: shortText(256).nullable(),
  command: shortText(4096).nullable(),
  startedAt: z.iso.datetime().nullable(),
  /** Docker container id (short form) or Kubernetes pod uid, from the cgroup. */
  container: shortText(128).nullable(),
  slurmJobId: shortText(64).nullable(),
  /**
   * `GPUDESK_RESERVATION` from the process environment, when readable: the
   * agent reports the value as it is, `<id>.<proof>` (lib/domain/booking-claim.ts);
   * the server checks the proof on arrival and keeps only the id.
   */
  reservationId: shortText(128).nullable(),
  /**
   * Set by the server once it checked the proof (server/fleet/ingest.ts):
   * true when the value proved the booking it names. What an agent sends
   * here is replaced.
   */
  reservationProven: z.boolean().optional(),
});

export const snapshotSchema = z
  .object({
    host: hostInfoSchema,
    gpus: z.array(gpuSampleSchema).max(256),
    processes: z.array(processInfoSchema).max(4096),
    /** When the agent read the GPUs; the server also checks it against its own clock (lib/domain/agent-protocol.ts). */
    sampledAt: z.iso.datetime(),
  })
  .superRefine((snapshot, ctx) => {
    // Two GPUs under one index or one UUID would file one GPU's readings under the other.
    // Slices share their parent's index; their UUIDs are their own.
    const indices = new Set<number>();
    const uuids = new Set<string>();
    snapshot.gpus.forEach((gpu, position) => {
      if (!gpu.mig && indices.has(gpu.index)) ctx.addIssue({ code: "custom", path: ["gpus", position, "index"], message: `GPU index ${gpu.index} appears twice` });
      if (uuids.has(gpu.uuid)) ctx.addIssue({ code: "custom", path: ["gpus", position, "uuid"], message: `GPU ${gpu.uuid} appears twice` });
      if (!gpu.mig) indices.add(gpu.index);
      uuids.add(gpu.uuid);
    });
  });

/** The refinements above as one test, for the fast path of `parseSnapshot`. */
function refinementsHold(snapshot: Snapshot): boolean {
  const { gpus } = snapshot;
  for (let i = 0; i < gpus.length; i++) {
    if (memoryAboveTotal(gpus[i]!)) return false;
    // A host has a handful of GPUs: pairs cost less than two sets.
    for (let j = 0; j < i; j++) {
      if (gpus[j]!.uuid === gpus[i]!.uuid) return false;
      if (!gpus[i]!.mig && !gpus[j]!.mig && gpus[j]!.index === gpus[i]!.index) return false;
    }
  }
  return true;
}

const fastSnapshot = compileFastCheck(snapshotSchema);

/**
 * `snapshotSchema.safeParse`, made cheap for the readings every agent sends
 * every second: a fast check of the schema's own bounds and refinements
 * first, and zod only when it is unsure (a reading it would refuse, whose
 * error zod words). Same answers as `snapshotSchema.safeParse`
 * (lib/domain/snapshot.test.ts holds it to that).
 */
export function parseSnapshot(raw: unknown): ReturnType<typeof snapshotSchema.safeParse> {
  const fast = fastSnapshot(raw);
  if (fast !== UNSURE && refinementsHold(fast as Snapshot)) return { success: true, data: fast as Snapshot };
  return snapshotSchema.safeParse(raw);
}

export type HostInfo = z.infer<typeof hostInfoSchema>;
export type GpuSample = z.infer<typeof gpuSampleSchema>;
export type MigDevice = z.infer<typeof migDeviceSchema>;
export type ProcessInfo = z.infer<typeof processInfoSchema>;
export type Snapshot = z.infer<typeof snapshotSchema>;
