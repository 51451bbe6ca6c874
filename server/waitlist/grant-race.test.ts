import type { PrismaClient } from "@prisma/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FleetState } from "@/server/fleet/fleet-state";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Leaving the queue while a grant is being made: the person who left must
 * not end up holding GPUs. The grant reads the waiting requests, then books
 * each; `between` runs the leave in that gap (the user lookup just before
 * the booking), which is where a Ctrl-C or a DELETE lands in real life.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let grantWaiting: typeof import("@/server/waitlist/grant-waiting").grantWaiting;
let joinWaitlist: typeof import("@/server/waitlist/join-waitlist").joinWaitlist;
let leaveWaitlist: typeof import("@/server/waitlist/list-waitlist").leaveWaitlist;
let leaveQueue: typeof import("@/host/cli-client/wait-for-grant").leaveQueue;
let db: typeof import("@/server/core/db").db;
let fixtures: Fixtures;
let server: { url: string; close: () => Promise<void> };

beforeAll(async () => {
  await useTestDatabase();
  const { setRuntime } = await import("@/server/runtime/runtime");
  setRuntime({ fleet: new FleetState({ offlineAfterMs: 5000, simulated: true }), ingest: {} as never, disconnectAgents: () => {} });
  ({ grantWaiting } = await import("@/server/waitlist/grant-waiting"));
  ({ joinWaitlist } = await import("@/server/waitlist/join-waitlist"));
  ({ leaveWaitlist } = await import("@/server/waitlist/list-waitlist"));
  ({ leaveQueue } = await import("@/host/cli-client/wait-for-grant"));
  ({ db } = await import("@/server/core/db"));
  fixtures = await import("@/server/testing/booking-fixtures");
  const { serveRoutes } = await import("@/server/testing/route-server");
  server = await serveRoutes({
    "DELETE /api/v1/waitlist/:id": (await import("@/app/api/v1/waitlist/[id]/route")).DELETE,
    "POST /api/v1/reservations/:id/release": (await import("@/app/api/v1/reservations/[id]/release/route")).POST,
  });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

/** The database client, with `work` run once just before the grant looks up the entry's person (then books). */
function between(work: () => Promise<unknown>): PrismaClient {
  const client = db();
  let done = false;
  const users = new Proxy(client.user, {
    get(target, property, receiver) {
      if (property !== "findUnique") return Reflect.get(target, property, receiver);
      return async (...args: Parameters<typeof target.findUnique>) => {
        if (!done) {
          done = true;
          await work();
        }
        return target.findUnique(...args);
      };
    },
  });
  return new Proxy(client, {
    get(target, property) {
      if (property === "user") return users;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A host of one GPU, a person waiting for it, and nothing in the way. */
async function waitingForFreeGpu() {
  const host = await fixtures.createTestHost(1);
  const person = await fixtures.createTestUser();
  const entry = await joinWaitlist(person, { count: 1, host: host.name, durationMinutes: 30, purpose: "queued" });
  return { host, person, entry };
}

async function heldBy(userId: string) {
  return db().reservation.findMany({ where: { userId, status: "booked" }, select: { id: true } });
}

describe("leaving the queue while a grant is made", () => {
  it("leave (the service): no booking for who left, and the entry says left", async () => {
    const { person, entry } = await waitingForFreeGpu();
    const grants = await grantWaiting({ client: between(() => leaveWaitlist(person, entry.id)) });
    expect(grants.filter((grant) => grant.entryId === entry.id)).toEqual([]);
    expect(await heldBy(person.id)).toEqual([]);
    const row = await db().waitlistEntry.findUniqueOrThrow({ where: { id: entry.id }, select: { status: true, reservationId: true } });
    expect(row).toEqual({ status: "left", reservationId: null });
  });

  it("DELETE /api/v1/waitlist/:id: answers left, and no booking appears", async () => {
    const { person, entry } = await waitingForFreeGpu();
    const { createPersonalToken } = await import("@/server/auth/tokens");
    const { token } = await createPersonalToken(person.id, "race");
    let answer: { status: string } | undefined;
    await grantWaiting({
      client: between(async () => {
        const response = await fetch(`${server.url}/api/v1/waitlist/${entry.id}`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } });
        answer = (await response.json()) as { status: string };
      }),
    });
    expect(answer?.status).toBe("left");
    expect(await heldBy(person.id)).toEqual([]);
  });

  it("the CLI's Ctrl-C (DELETE, then release what was granted): nothing stays booked, whichever comes first", async () => {
    const { createPersonalToken } = await import("@/server/auth/tokens");
    // The leave lands in the middle of the grant.
    const early = await waitingForFreeGpu();
    const config = (userId: string) => createPersonalToken(userId, "cli").then(({ token }) => ({ url: server.url, token }));
    const earlyConfig = await config(early.person.id);
    let earlyOutcome: string | undefined;
    await grantWaiting({ client: between(async () => (earlyOutcome = await leaveQueue(earlyConfig, early.entry.id))) });
    expect(earlyOutcome).toBe("left");
    expect(await heldBy(early.person.id)).toEqual([]);

    // The grant wins: the CLI learns it from the DELETE's answer and gives the GPUs back.
    const late = await waitingForFreeGpu();
    const granted = (await grantWaiting()).filter((grant) => grant.entryId === late.entry.id);
    expect(granted).toHaveLength(1);
    expect(await leaveQueue(await config(late.person.id), late.entry.id)).toBe("released");
    expect(await heldBy(late.person.id)).toEqual([]);
  });
});
