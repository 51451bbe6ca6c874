import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Slurm's jobs and the reservations gpudesk did not make hold units in the
 * occupancy, as bookings do: "any N GPUs" places around them. The calendar is
 * laid from answers recorded from the real Slurm 26.05
 * (server/slurm/fixtures/calendar-*.json): bob's job on GPUs 4-5 of slurm-a
 * until 19:13, a reservation "course" of 2 GPUs there from 18:58.
 */
const fixture = (name: string): unknown => JSON.parse(readFileSync(path.join(__dirname, "..", "..", "slurm", "fixtures", name), "utf8"));
/** When it was recorded (18:28:40 UTC): bob's job runs, the course reservation starts in half an hour. */
const NOW = new Date(1796668120_000);

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let fx: Fixtures;
let create: typeof import("@/server/bookings/commands/create-booking").createBooking;
let setSlurmConnection: typeof import("@/server/slurm/slurm-connection").setSlurmConnection;

beforeAll(async () => {
  await useTestDatabase();
  fx = await import("@/server/testing/booking-fixtures");
  ({ createBooking: create } = await import("@/server/bookings/commands/create-booking"));
  const { SlurmConnection } = await import("@/server/slurm/slurm-connection");
  ({ setSlurmConnection } = await import("@/server/slurm/slurm-connection"));
  const { buildSlurmCalendar } = await import("@/server/slurm/slurm-calendar");
  const { jobsAnswer, reservationsAnswer, toSlurmJob, toSlurmReservation } = await import("@/server/slurm/slurm-model");
  const { db } = await import("@/server/core/db");
  const host = await fx.createTestHost(8);
  hostName = host.name;
  const gpus = await db().gpu.findMany({ where: { hostId: host.id }, orderBy: { index: "asc" }, select: { id: true, uuid: true, index: true } });
  // Never called: the calendar is laid from the recorded lists.
  const connection = new SlurmConnection({ url: "http://127.0.0.1:9", user: "gpudesk", token: "unused" });
  connection.calendar = buildSlurmCalendar(
    jobsAnswer.parse(fixture("calendar-jobs.json")).jobs.map(toSlurmJob),
    reservationsAnswer.parse(fixture("calendar-reservations.json")).reservations.map(toSlurmReservation),
    [{ id: host.id, name: host.name, node: "slurm-a", gpus }],
    NOW.getTime(),
  );
  setSlurmConnection(connection);
}, 60_000);

afterAll(() => setSlurmConnection(null));

let hostName: string;

describe("placement around Slurm's jobs and reservations", () => {
  it("gives 'any N GPUs' the units Slurm does not hold in the window, and refuses more", async () => {
    const user = await fx.createTestUser();
    // 18:28–19:28: bob's job holds GPUs 4-5 throughout, the course reservation 6-7 from 18:58.
    const booking = await create(user, { host: hostName, count: 4, durationMinutes: 60, purpose: "around Slurm" }, { now: NOW });
    expect(booking.gpus.map((gpu) => gpu.index).sort()).toEqual([0, 1, 2, 3]);
    const error = await fx.refusal(create(user, { host: hostName, count: 1, durationMinutes: 60, purpose: "one more" }, { now: NOW }));
    expect(error.status).toBe(409);
  });
});
