process.env.TZ = "America/New_York";

import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { beforeAll, describe, expect, it } from "vitest";
import type { BookingRequest } from "@/lib/domain/booking-schema";
import { rangesOverlap } from "@/lib/domain/booking-state";
import { repoRoot } from "@/server/core/paths";
import { useTestDatabase } from "@/server/testing/test-db";

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let db: typeof import("@/server/core/db").db;
let fx: Fixtures;
let databaseUrl: string;

const NOW = new Date("2026-12-01T10:00:00Z");
const iso = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000).toISOString();

// Migrating a fresh database spawns Prisma's CLI: slow on a busy machine.
beforeAll(async () => {
  databaseUrl = await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ db } = await import("@/server/core/db"));
  fx = await import("@/server/testing/booking-fixtures");
}, 60_000);

type Outcome = { ok: true; id: string } | { ok: false; code: string; message: string };

function settle(promise: Promise<{ id: string }>): Promise<Outcome> {
  return promise.then(
    (view) => ({ ok: true, id: view.id }),
    (error: { code?: string; message?: string }) => ({ ok: false, code: error.code ?? "unexpected", message: String(error.message) }),
  );
}

/** Every pair of bookings of one GPU in the database: none may share an instant. */
async function overlapsOnHost(hostId: string): Promise<string[]> {
  const rows = await db().reservationGpu.findMany({
    where: { gpu: { hostId } },
    select: { gpuId: true, reservationId: true, startsAt: true, endsAt: true },
  });
  const found: string[] = [];
  for (const a of rows) {
    for (const b of rows) {
      if (a.reservationId < b.reservationId && a.gpuId === b.gpuId) {
        if (rangesOverlap(a.startsAt.getTime(), a.endsAt.getTime(), b.startsAt.getTime(), b.endsAt.getTime())) {
          found.push(`${a.reservationId} and ${b.reservationId} on ${a.gpuId}`);
        }
      }
    }
  }
  return found;
}

/** A booking worker process (server/testing/booking-worker.ts) with its own database connection. */
function startWorker(job: object) {
  const tsx = path.join(repoRoot, "node_modules", "tsx", "dist", "cli.mjs");
  const child = spawn(process.execPath, [tsx, path.join(repoRoot, "server", "testing", "booking-worker.ts"), JSON.stringify(job)], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const line = await lines.next();
    if (line.done) throw new Error("the booking worker ended early (its error is above)");
    return line.value as string;
  };
  const ready = next();
  return {
    ready,
    go: () => child.stdin.write("go\n"),
    outcomes: ready.then(next).then((line) => JSON.parse(line) as Outcome[]),
  };
}

describe("never double-booked", () => {
  it("lets exactly one of 24 simultaneous requests for the same GPUs and time win", async () => {
    const host = await fx.createTestHost(4);
    const users = await Promise.all(Array.from({ length: 24 }, () => fx.createTestUser()));
    const request: BookingRequest = { host: host.name, gpus: [0, 1], startsAt: iso(10), durationMinutes: 60, purpose: "race" };
    const outcomes = await Promise.all(users.map((user) => settle(createBooking(user, request, { now: NOW }))));

    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
    const refused = outcomes.filter((outcome) => !outcome.ok);
    expect(refused).toHaveLength(23);
    for (const outcome of refused) expect(outcome).toMatchObject({ code: "conflict", message: expect.stringContaining("is booked by") });
    expect(await db().reservation.count({ where: { hostId: host.id } })).toBe(1);
    expect(await overlapsOnHost(host.id)).toEqual([]);
  });

  it("keeps every GPU single-booked under 32 mixed, overlapping requests, and refuses only for a real clash", async () => {
    const host = await fx.createTestHost(4);
    const users = await Promise.all(Array.from({ length: 32 }, () => fx.createTestUser()));
    const gpuSets = [[0], [1], [2], [3], [0, 1], [1, 2], [2, 3], [0, 3]];
    const requests: BookingRequest[] = users.map((_, i) => ({
      host: host.name,
      gpus: gpuSets[i % gpuSets.length],
      startsAt: iso(15 * (i % 5)),
      durationMinutes: 45,
      purpose: `mixed ${i}`,
    }));
    const outcomes = await Promise.all(users.map((user, i) => settle(createBooking(user, requests[i], { now: NOW }))));

    for (const outcome of outcomes) if (!outcome.ok) expect(outcome.code).toBe("conflict");
    expect(outcomes.some((outcome) => outcome.ok)).toBe(true);
    expect(outcomes.some((outcome) => !outcome.ok)).toBe(true);
    expect(await overlapsOnHost(host.id)).toEqual([]);

    // Each refusal had a reason: a winner holds one of its GPUs at one of its instants.
    const winners = requests.filter((_, i) => outcomes[i].ok);
    requests.forEach((request, i) => {
      if (outcomes[i].ok) return;
      const start = Date.parse(request.startsAt ?? "");
      const end = start + (request.durationMinutes ?? 0) * 60_000;
      const clash = winners.some(
        (winner) =>
          winner.gpus?.some((gpu) => request.gpus?.includes(gpu)) &&
          rangesOverlap(start, end, Date.parse(winner.startsAt ?? ""), Date.parse(winner.startsAt ?? "") + (winner.durationMinutes ?? 0) * 60_000),
      );
      expect(clash, `request ${i} was refused without a clash`).toBe(true);
    });
  });

  it("holds across processes: 4 processes with their own connections race 24 requests, one wins", async () => {
    const host = await fx.createTestHost(2);
    const users = await Promise.all(Array.from({ length: 24 }, () => fx.createTestUser()));
    const request: BookingRequest = { host: host.name, gpus: [0, 1], startsAt: iso(5), durationMinutes: 30, purpose: "cross-process race" };
    const workers = Array.from({ length: 4 }, (_, w) =>
      startWorker({ now: NOW.toISOString(), attempts: users.slice(w * 6, w * 6 + 6).map((actor) => ({ actor, request })) }),
    );
    await Promise.all(workers.map((worker) => worker.ready));
    for (const worker of workers) worker.go();
    const outcomes = (await Promise.all(workers.map((worker) => worker.outcomes))).flat();

    expect(outcomes).toHaveLength(24);
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
    // No "database is locked" or other failure: the losers waited for the lock and then saw the winner.
    expect(outcomes.filter((outcome) => !outcome.ok && outcome.code !== "conflict")).toEqual([]);
    expect(await db().reservation.count({ where: { hostId: host.id } })).toBe(1);
    expect(await overlapsOnHost(host.id)).toEqual([]);
  }, 90_000);
});
