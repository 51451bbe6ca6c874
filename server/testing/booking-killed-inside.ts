/**
 * The process a crash test kills in the middle of a booking
 * (server/bookings/commands/crash.test.ts): it books across nodes with a
 * booking backend of the test's own that, inside the booking's transaction
 * and after every part's rows are written, prints "inside <parts written>"
 * and then waits for ever, so that the test can SIGKILL it there. Run with tsx:
 *   DATABASE_URL=… tsx server/testing/booking-killed-inside.ts '<json job>'
 */
import type { MultiNodeRequest } from "@/lib/domain/booking-schema";
import type { Actor } from "@/server/access/actor";
import { registerBookingBackend } from "@/server/bookings/backends/booking-backend";
import { createMultiNodeBooking } from "@/server/bookings/commands/create-multi-node";

interface Job {
  now: string;
  actor: Actor;
  request: MultiNodeRequest;
}

const job = JSON.parse(process.argv[2] ?? "{}") as Job;

async function main() {
  registerBookingBackend({
    name: "killed-inside",
    async beforeCommit(change, tx) {
      // What this transaction wrote, seen through it: every part and its units, not committed.
      const parts = await tx.reservation.count({ where: { OR: [{ id: change.booking.id }, { groupId: change.booking.id }] } });
      const units = await tx.reservationGpu.count({ where: { reservationId: { in: change.booking.parts.map((part) => part.partId) } } });
      process.stdout.write(`inside ${JSON.stringify({ bookingId: change.booking.id, parts, units })}\n`);
      await new Promise(() => undefined);
    },
  });
  await createMultiNodeBooking(job.actor, job.request, { now: new Date(job.now) });
  process.stdout.write("committed\n");
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
