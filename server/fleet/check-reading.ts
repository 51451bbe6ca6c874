import { checkReadingTime } from "@/lib/domain/agent-protocol";
import { canonicalGpuUuid } from "@/lib/domain/gpu-uuid";
import { parseSnapshot, type Snapshot } from "@/lib/domain/snapshot";
import { checkProcessClaims } from "@/server/bookings/rules/booking-proof";

export type CheckedReading = { ok: true; snapshot: Snapshot } | { ok: false; error: string };

/**
 * One agent reading as the server files it, or why it is refused: its
 * shape and ranges (lib/domain/snapshot.ts), its clock against the server's
 * (lib/domain/agent-protocol.ts; a reading slightly ahead is filed at its arrival),
 * each GPUDESK_RESERVATION reduced to the booking id and whether its
 * proof held, and every GPU UUID in one spelling (lib/domain/gpu-uuid.ts), so that
 * another host's GPU in another letter case is still that host's GPU.
 */
export function checkReading(raw: unknown, receivedAtMs: number, secret?: string): CheckedReading {
  const parsed = parseSnapshot(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: `invalid snapshot at ${issue?.path.join(".") || "(root)"}: ${issue?.message}` };
  }
  const time = checkReadingTime(Date.parse(parsed.data.sampledAt), receivedAtMs);
  if (!time.ok) return { ok: false, error: time.error };
  const sampledAt = time.clamped ? new Date(time.sampledAtMs).toISOString() : parsed.data.sampledAt;
  // A copy only where the spelling changes: what nvidia-smi prints is canonical already (no garbage per GPU per second).
  const gpus = parsed.data.gpus.map((gpu) => {
    const uuid = canonicalGpuUuid(gpu.uuid);
    return uuid === gpu.uuid ? gpu : { ...gpu, uuid };
  });
  const processes = parsed.data.processes.map((process) => {
    const gpuUuid = canonicalGpuUuid(process.gpuUuid);
    return gpuUuid === process.gpuUuid ? process : { ...process, gpuUuid };
  });
  if (new Set(gpus.map((gpu) => gpu.uuid)).size !== gpus.length) return { ok: false, error: "invalid snapshot at gpus: a GPU appears twice (UUIDs compare case-insensitively)" };
  return { ok: true, snapshot: { ...parsed.data, sampledAt, gpus, processes: checkProcessClaims(processes, secret) } };
}
