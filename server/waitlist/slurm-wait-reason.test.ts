import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitReasonSentence } from "@/lib/domain/waitlist-schema";
import { formatWhen } from "@/lib/format/local-time";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The queue's reason names Slurm (issue 49): a request waiting for GPUs that
 * Slurm's own jobs hold said nothing (no booking held them) or blamed nobody.
 * The calendar is laid from answers recorded from the real Slurm 26.05
 * (server/slurm/fixtures/): bob's job 2 on GPUs 4-5 of slurm-a until 19:13
 * (calendar-jobs.json), and bob's job 23 on GPUs 0-1 of slurm-b with no time
 * limit (unplanned-jobs.json).
 */
const fixture = (name: string): unknown => JSON.parse(readFileSync(path.join(__dirname, "..", "slurm", "fixtures", name), "utf8"));
/** When calendar-jobs.json was recorded (18:28:40 UTC): bob's job 2 runs. */
const NOW = new Date(1796668120_000);

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let fx: Fixtures;
let joinWaitlist: typeof import("@/server/waitlist/join-waitlist").joinWaitlist;
let listWaitlist: typeof import("@/server/waitlist/list-waitlist").listWaitlist;
let setSlurmConnection: typeof import("@/server/slurm/slurm-connection").setSlurmConnection;
let hostA: string;
let hostB: string;

beforeAll(async () => {
  await useTestDatabase();
  fx = await import("@/server/testing/booking-fixtures");
  ({ joinWaitlist } = await import("@/server/waitlist/join-waitlist"));
  ({ listWaitlist } = await import("@/server/waitlist/list-waitlist"));
  const { SlurmConnection } = await import("@/server/slurm/slurm-connection");
  ({ setSlurmConnection } = await import("@/server/slurm/slurm-connection"));
  const { buildSlurmCalendar } = await import("@/server/slurm/slurm-calendar");
  const { jobsAnswer, toSlurmJob } = await import("@/server/slurm/slurm-model");
  const { db } = await import("@/server/core/db");
  const [a, b] = [await fx.createTestHost(8), await fx.createTestHost(8)];
  hostA = a.name;
  hostB = b.name;
  const gpusOf = (hostId: string) => db().gpu.findMany({ where: { hostId }, orderBy: { index: "asc" }, select: { id: true, uuid: true, index: true } });
  const jobs = (name: string) => jobsAnswer.parse(fixture(name)).jobs.map(toSlurmJob);
  // Bob's job 2 (slurm-a, running) and bob's job 23 (slurm-b, no time limit; its start moved to before NOW); no reservation.
  const unlimited = jobs("unplanned-jobs.json").map((job) => (job.id === 23 ? { ...job, startsAt: NOW.getTime() - 60_000 } : job));
  const connection = new SlurmConnection({ url: "http://127.0.0.1:9", user: "gpudesk", token: "unused" });
  connection.calendar = buildSlurmCalendar(
    [...jobs("calendar-jobs.json").filter((job) => job.id === 2), ...unlimited],
    [],
    [
      { id: a.id, name: a.name, node: "slurm-a", gpus: await gpusOf(a.id) },
      { id: b.id, name: b.name, node: "slurm-b", gpus: await gpusOf(b.id) },
    ],
    NOW.getTime(),
  );
  setSlurmConnection(connection);
}, 60_000);

afterAll(() => setSlurmConnection(null));

async function reasonOf(id: string) {
  const view = (await listWaitlist(NOW)).find((entry) => entry.id === id);
  if (!view?.waitingBecause) throw new Error(`request ${id} has no reason`);
  return view.waitingBecause;
}

describe("a request waiting for GPUs that Slurm holds", () => {
  it("names the Slurm job, its user, host, GPUs and end, in the API's message and in the reader's own time", async () => {
    const ann = await fx.createTestUser();
    const entry = await joinWaitlist(ann, { count: 8, host: hostA, durationMinutes: 60, purpose: "all of it" }, { now: NOW });
    const reason = await reasonOf(entry.id);
    expect(reason).toMatchObject({ kind: "held", bookers: [], slurm: [{ kind: "job", id: "2", user: "bob", hostName: hostA, gpuIndices: [4, 5] }] });
    const end = "2026-12-07T19:13:30.000Z";
    expect(reason.message).toBe(`waits for Slurm job 2 of bob on ${hostA} GPUs 4, 5 until 2026-12-07 19:13 UTC`);
    // The queue page and `gpudesk reserve --wait` write the same sentence with the reader's times.
    const local = (iso: string) => formatWhen(iso, NOW.getTime(), { timeZone: "Europe/Berlin" });
    expect(waitReasonSentence(reason, local)).toBe(`waits for Slurm job 2 of bob on ${hostA} GPUs 4, 5 until ${local(end)}`);
  });

  it("says a job without a time limit has none, rather than a day nobody set", async () => {
    const ann = await fx.createTestUser();
    const entry = await joinWaitlist(ann, { count: 8, host: hostB, durationMinutes: 60, purpose: "all of it" }, { now: NOW });
    const reason = await reasonOf(entry.id);
    expect(reason.message).toBe(`waits for Slurm job 23 of bob on ${hostB} GPUs 0, 1 (no time limit)`);
  });
});
