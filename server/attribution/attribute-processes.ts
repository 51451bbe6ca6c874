import type { AttributionEvidence } from "@/lib/domain/attribution";
import type { ProcessOwner } from "@/lib/domain/gpu-availability";
import type { LiveBooking } from "@/lib/live/live";
import type { PersonRef } from "@/lib/domain/booking-types";
import type { ProcessInfo } from "@/lib/domain/snapshot";
import type { PersonDirectory } from "@/server/attribution/user-directory";

export interface AttributionContext {
  /** Active and upcoming bookings by booking id. */
  bookings: ReadonlyMap<string, LiveBooking>;
  directory: PersonDirectory;
}

interface JobOwner {
  reservationId: string | null;
  person: PersonRef | null;
}

/** The Slurm job, Kubernetes pod or container a process runs in, as its cgroup told the agent. */
function jobOf(process: ProcessInfo): AttributionEvidence | null {
  // A Slurm job that runs a container (pyxis, enroot) is scheduled as the job: it wins.
  if (process.slurmJobId) return { kind: "slurm", value: process.slurmJobId };
  if (process.container?.startsWith("pod:")) return { kind: "pod", value: process.container };
  if (process.container) return { kind: "container", value: process.container };
  return null;
}

function jobKey(evidence: AttributionEvidence): string {
  return `${evidence.kind}:${evidence.value}`;
}

/**
 * Decides who each process of one host belongs to, best evidence first:
 *
 * 1. `GPUDESK_RESERVATION` in its environment naming a known booking with
 *    that booking's proof → its booker (whoever the Unix owner is: only the
 *    booker is shown the proof). A value that names a booking without its
 *    proof counts for nothing and is recorded as a false claim.
 * 2. Its Slurm job, Kubernetes pod or container → the job's owner: the
 *    booking that any process of the job names, else the first process of
 *    the job (lowest pid) whose login belongs to someone. This is why a
 *    container's root-owned workers still count as their owner's.
 * 3. Its Unix login → the person with that `unixLogin`.
 *
 * Pure: same processes and context, same answer. Returns one entry per pid.
 */
export function attributeProcesses(processes: readonly ProcessInfo[], context: AttributionContext): Map<number, ProcessOwner> {
  const known = (bookingId: string | null) => (bookingId ? context.bookings.get(bookingId) ?? null : null);
  // Only a value that carried the booking's proof vouches (server/bookings/rules/booking-proof.ts).
  const proven = (process: ProcessInfo) => (process.reservationProven === true ? known(process.reservationId) : null);
  // A known booking named without its proof: someone hides on it (or runs an old launch line).
  const falselyClaimed = (process: ProcessInfo) => (process.reservationProven !== true ? known(process.reservationId)?.reservationId : undefined);
  const personOf = (login: string | null) => (login ? context.directory.byLogin(login) : null);

  const jobs = new Map<string, JobOwner>();
  for (const process of [...processes].sort((a, b) => a.pid - b.pid)) {
    const job = jobOf(process);
    if (!job) continue;
    const key = jobKey(job);
    const owner = jobs.get(key) ?? { reservationId: null, person: null };
    const booking = proven(process);
    if (booking && owner.reservationId === null) owner.reservationId = booking.reservationId;
    owner.person ??= personOf(process.user);
    jobs.set(key, owner);
  }

  const result = new Map<number, ProcessOwner>();
  for (const process of processes) {
    if (result.has(process.pid)) continue;
    const login = process.user;
    const booking = proven(process);
    const falseClaim = falselyClaimed(process);
    const claim = falseClaim ? { falseClaim } : {};
    if (booking) {
      result.set(process.pid, {
        pid: process.pid,
        runner: booking.bookedBy,
        reservationId: booking.reservationId,
        login,
        evidence: { kind: "reservation", value: booking.reservationId },
      });
      continue;
    }
    const job = jobOf(process);
    if (job) {
      const owner = jobs.get(jobKey(job))!;
      const jobBooking = known(owner.reservationId);
      result.set(process.pid, {
        pid: process.pid,
        runner: jobBooking?.bookedBy ?? owner.person,
        reservationId: jobBooking?.reservationId ?? null,
        login,
        evidence: job,
        ...claim,
      });
      continue;
    }
    result.set(process.pid, {
      pid: process.pid,
      runner: personOf(login),
      reservationId: null,
      login,
      evidence: login ? { kind: "login", value: login } : { kind: "none", value: null },
      ...claim,
    });
  }
  return result;
}
