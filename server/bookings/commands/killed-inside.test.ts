import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "@/server/core/paths";
import { useTestDatabase } from "@/server/testing/test-db";

/*
 * Nothing half-made across a crash (issue 47): a booking across nodes whose
 * process is killed (SIGKILL) inside its one transaction, after every part
 * and unit was written and before the commit, leaves nothing: no part
 * without its siblings, no unit, no audit entry; its nodes book again at
 * once. On SQLite and on PostgreSQL. (A booking acknowledged before a crash:
 * crash-restart.test.ts.)
 */

const NOW = new Date("2026-12-01T10:00:00Z");

describe("a booking across nodes killed inside its transaction", () => {
  type Fixtures = typeof import("@/server/testing/booking-fixtures");
  let fx: Fixtures;
  let db: typeof import("@/server/core/db").db;
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await useTestDatabase();
    fx = await import("@/server/testing/booking-fixtures");
    ({ db } = await import("@/server/core/db"));
  }, 60_000);

  /** The booking process (server/testing/booking-killed-inside.ts), killed with SIGKILL once it says it is inside the transaction. */
  async function bookAndKillInside(job: object): Promise<{ bookingId: string; parts: number; units: number }> {
    const tsx = path.join(repoRoot, "node_modules", "tsx", "dist", "cli.mjs");
    const child = spawn(process.execPath, [tsx, path.join(repoRoot, "server", "testing", "booking-killed-inside.ts"), JSON.stringify(job)], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      for await (const line of createInterface({ input: child.stdout! })) {
        if (line === "committed") throw new Error("the booking committed: the test's backend never held it inside");
        if (line.startsWith("inside ")) {
          child.kill("SIGKILL");
          return JSON.parse(line.slice("inside ".length)) as { bookingId: string; parts: number; units: number };
        }
      }
      throw new Error("the booking process ended before its transaction (its error is above)");
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
  }

  it("leaves no part, unit or audit entry, and the nodes book again", async () => {
    const { names } = await fx.createModelFleet(3, 2);
    const person = await fx.createTestUser();
    const request = { parts: [{ host: names[0], gpus: 2 }, { host: names[1], gpus: 2 }, { host: names[2], gpus: 2 }], durationMinutes: 60, purpose: "killed inside" };

    const inside = await bookAndKillInside({ now: NOW.toISOString(), actor: person, request });
    // Inside the transaction, every part and every unit was written: the kill came after the whole write.
    expect(inside).toMatchObject({ parts: 3, units: 6 });

    // The database after the crash: nothing of the booking, whole or in part.
    expect(await db().reservation.count({ where: { OR: [{ id: inside.bookingId }, { groupId: inside.bookingId }] } })).toBe(0);
    expect(await db().reservation.count({ where: { userId: person.id } })).toBe(0);
    expect(await db().reservationGpu.count({ where: { reservation: { userId: person.id } } })).toBe(0);
    expect(await db().auditLog.count({ where: { actorId: person.id } })).toBe(0);

    // Its locks went with the process: the same nodes book at once, whole.
    const { createMultiNodeBooking } = await import("@/server/bookings/commands/create-multi-node");
    const again = await createMultiNodeBooking(person, { ...request, purpose: "after the crash" }, { now: NOW });
    expect(again.parts.map((part) => part.host.name)).toEqual(names);
    expect(await db().reservation.count({ where: { userId: person.id } })).toBe(3);
  }, 120_000);
});
