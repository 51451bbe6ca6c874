import { checkReadingTime } from "@/lib/agent-protocol";
import { parseSnapshot, type Snapshot } from "@/lib/snapshot";
import { checkProcessClaims } from "@/server/reservations/reservation-proof";

export type CheckedReading = { ok: true; snapshot: Snapshot } | { ok: false; error: string };

/**
 * One agent reading as the server files it, or why it is refused: its
 * shape and ranges (lib/snapshot.ts), its clock against the server's
 * (lib/agent-protocol.ts; a reading slightly ahead is filed at its arrival),
 * and each GPUDESK_RESERVATION reduced to the booking id and whether its
 * proof held.
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
  return { ok: true, snapshot: { ...parsed.data, sampledAt, processes: checkProcessClaims(parsed.data.processes, secret) } };
}
