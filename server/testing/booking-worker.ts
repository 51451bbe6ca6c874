/**
 * One process of the cross-process booking test. It opens its own database
 * connection, prints "ready", waits for a line on stdin (the same instant
 * for every process), fires its booking requests at once and prints one
 * JSON line of outcomes. Run with tsx:
 *   DATABASE_URL=file:… tsx server/testing/booking-worker.ts '<json job>'
 */
import { createInterface } from "node:readline";
import type { BookingRequest } from "@/lib/domain/booking-schema";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import type { Actor } from "@/server/access/actor";
import { createBooking } from "@/server/bookings/commands/create-booking";

interface Job {
  now: string;
  attempts: { actor: Actor; request: BookingRequest }[];
}

const job = JSON.parse(process.argv[2] ?? "{}") as Job;

async function main() {
  // Connect before the start signal, so that the requests themselves race.
  await db().host.count();
  const lines = createInterface({ input: process.stdin });
  process.stdout.write("ready\n");
  await new Promise<void>((resolve) => lines.once("line", () => resolve()));
  lines.close();
  const outcomes = await Promise.all(
    job.attempts.map(({ actor, request }) =>
      createBooking(actor, request, { now: new Date(job.now) }).then(
        (view) => ({ ok: true as const, id: view.id }),
        (error: unknown) => ({
          ok: false as const,
          code: error instanceof AppError ? error.code : "unexpected",
          message: error instanceof Error ? error.message : String(error),
        }),
      ),
    ),
  );
  process.stdout.write(`${JSON.stringify(outcomes)}\n`);
  await db().$disconnect();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
