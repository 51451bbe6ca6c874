import { z } from "zod";

/**
 * The agent's snapshot: one reading of one host. This shape is a public
 * contract (`gpudesk agent --once --json` prints it, other tools read it), so
 * fields are only ever added, never renamed. A value the GPU does not report
 * is `null`, never 0.
 */

const nullableNumber = z.number().finite().nullable();
const shortText = (max: number) => z.string().max(max);

export const hostInfoSchema = z.object({
  name: shortText(253).min(1),
  driverVersion: shortText(64).nullable(),
  cudaVersion: shortText(32).nullable(),
});

export const gpuSampleSchema = z.object({
  index: z.number().int().min(0).max(1023),
  uuid: shortText(128).min(1),
  name: shortText(128),
  pciBusId: shortText(64).nullable(),
  memoryTotalMiB: nullableNumber,
  memoryUsedMiB: nullableNumber,
  utilizationGpuPct: nullableNumber,
  utilizationMemoryPct: nullableNumber,
  temperatureC: nullableNumber,
  powerDrawW: nullableNumber,
  powerLimitW: nullableNumber,
  fanSpeedPct: nullableNumber,
  smClockMHz: nullableNumber,
  pstate: shortText(8).nullable(),
  /** "Enabled" / "Disabled" as nvidia-smi says it; null where MIG does not exist. */
  migMode: shortText(32).nullable(),
  eccErrorsUncorrected: nullableNumber,
});

export const processInfoSchema = z.object({
  gpuUuid: shortText(128),
  pid: z.number().int().min(0),
  name: shortText(1024),
  usedMemoryMiB: nullableNumber,
  /** Login of the process owner, from the host's passwd database (or the uid as text). */
  user: shortText(256).nullable(),
  command: shortText(4096).nullable(),
  startedAt: z.iso.datetime().nullable(),
  /** Docker container id (short form) or Kubernetes pod uid, from the cgroup. */
  container: shortText(128).nullable(),
  slurmJobId: shortText(64).nullable(),
  /** `GPUDESK_RESERVATION` from the process environment, when readable. */
  reservationId: shortText(128).nullable(),
});

export const snapshotSchema = z.object({
  host: hostInfoSchema,
  gpus: z.array(gpuSampleSchema).max(256),
  processes: z.array(processInfoSchema).max(4096),
  sampledAt: z.iso.datetime(),
});

export type HostInfo = z.infer<typeof hostInfoSchema>;
export type GpuSample = z.infer<typeof gpuSampleSchema>;
export type ProcessInfo = z.infer<typeof processInfoSchema>;
export type Snapshot = z.infer<typeof snapshotSchema>;
