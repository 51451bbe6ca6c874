import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";
import { slurmForTests, useTestSlurm, type TestSlurm } from "@/server/testing/slurm-cluster";
import type { Actor } from "@/server/access/actor";

/**
 * Against the real Slurm 26.05 of scripts/slurm/start.sh (two nodes of 8
 * fake GPUs): a booking on a Slurm node is a Slurm reservation, Slurm's jobs
 * in the way refuse it, release frees the GPUs for a waiting job, the
 * reconciler repairs what was deleted by hand.
 */
const cluster = slurmForTests();
if (!cluster.available && process.env.GPUDESK_TEST_SLURM_REQUIRED === "1") throw new Error(cluster.reason);

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let fx: Fixtures;
let slurm: TestSlurm;
let connection: import("@/server/slurm/slurm-connection").SlurmConnection;
let create: typeof import("@/server/bookings/commands/create-booking").createBooking;
let createAcross: typeof import("@/server/bookings/commands/create-multi-node").createMultiNodeBooking;
let release: typeof import("@/server/bookings/commands/end-booking").releaseBooking;
let change: typeof import("@/server/bookings/commands/change-booking").changeBookingEnd;
let reconcile: typeof import("@/server/bookings/slurm/slurm-reconciler").reconcileSlurm;
let db: typeof import("@/server/core/db").db;
let ann: Actor;
let bob: Actor;
let nobody: Actor;
const hosts: Record<string, string> = {};
let unregister: () => void;
let stopNotices: () => void;
let refreshSlurmCalendar: typeof import("@/server/hosts/slurm-calendar-hosts").refreshSlurmCalendar;

async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** gpudesk's reservations that hold GPUs (one ended under a running job lingers in Slurm's list until Slurm purges it). */
const reservations = async () => (await connection.client.listReservations()).filter((reservation) => reservation.name.startsWith("gpudesk-") && (reservation.endsAt ?? Infinity) > Date.now());
const job = async (id: number) => (await connection.client.listJobs()).find((entry) => entry.id === id);
const sbatch = async (user: string, args: string) => Number((await slurm.as(user, `sbatch --parsable ${args} --wrap 'sleep 600'`)).trim().split(";")[0]);

describe.skipIf(!cluster.available)("Slurm underneath (a real Slurm 26.05)", () => {
  beforeAll(async () => {
    await useTestDatabase();
    slurm = await useTestSlurm();
    fx = await import("@/server/testing/booking-fixtures");
    ({ createBooking: create } = await import("@/server/bookings/commands/create-booking"));
    ({ createMultiNodeBooking: createAcross } = await import("@/server/bookings/commands/create-multi-node"));
    ({ releaseBooking: release } = await import("@/server/bookings/commands/end-booking"));
    ({ changeBookingEnd: change } = await import("@/server/bookings/commands/change-booking"));
    ({ reconcileSlurm: reconcile } = await import("@/server/bookings/slurm/slurm-reconciler"));
    ({ db } = await import("@/server/core/db"));
    const { SlurmConnection } = await import("@/server/slurm/slurm-connection");
    const { slurmBookingBackend } = await import("@/server/bookings/slurm/slurm-backend");
    const { registerBookingBackend } = await import("@/server/bookings/backends/booking-backend");
    const { setHostSlurmNode } = await import("@/server/hosts/host-registry");
    ({ refreshSlurmCalendar } = await import("@/server/hosts/slurm-calendar-hosts"));
    connection = new SlurmConnection({ url: slurm.url, user: slurm.user, jwtKeyFile: slurm.jwtKeyFile });
    // The server's connection: the occupancy, the views and the tick read its calendar.
    (await import("@/server/slurm/slurm-connection")).setSlurmConnection(connection);
    await connection.refresh();
    // A clean cluster: no job, no reservation of gpudesk's left by an earlier run.
    await slurm.as("root", "scancel --user=ann --user=bob 2>/dev/null; scancel -u ann; scancel -u bob; true");
    for (const reservation of await connection.client.listReservations()) if (reservation.name.startsWith("gpudesk-")) await connection.client.deleteReservation(reservation.name);
    unregister = registerBookingBackend(slurmBookingBackend(connection));
    // The booker is told of a reservation gone missing, as the server wires it (server/main/start-slurm.ts).
    const { listenForMissingSlurmReservations } = await import("@/server/notifications/booking-notices");
    stopNotices = listenForMissingSlurmReservations();
    const admin = await fx.createTestUser("admin");
    [ann, bob, nobody] = await Promise.all([fx.createTestUser(), fx.createTestUser(), fx.createTestUser()]);
    await db().user.update({ where: { id: ann.id }, data: { unixLogin: "ann" } });
    await db().user.update({ where: { id: bob.id }, data: { unixLogin: "bob" } });
    ann = { ...ann, unixLogin: "ann" };
    bob = { ...bob, unixLogin: "bob" };
    // gpudesk's hosts are named otherwise: mapped to Slurm's NodeNames.
    for (const node of ["slurm-a", "slurm-b"]) {
      const host = await fx.createTestHost(8, "dgx");
      await setHostSlurmNode(admin.id, host.id, node);
      hosts[node] = host.name;
    }
    await waitFor("jobs gone", () => connection.client.listJobs(), (jobs) => jobs.every((entry) => entry.state === "other"));
  }, 120_000);

  afterAll(async () => {
    unregister?.();
    stopNotices?.();
    (await import("@/server/slurm/slurm-connection")).setSlurmConnection(null);
    await slurm?.as("root", "scancel -u ann; scancel -u bob; true").catch(() => "");
    for (const reservation of connection ? await reservations().catch(() => []) : []) await connection.client.deleteReservation(reservation.name);
    slurm?.release();
  });

  it("makes a booking a reservation (Users, node, GPU count, times); the booker's job runs under it, another's waits; release lets it start", async () => {
    const booking = await create(ann, { host: hosts["slurm-a"], gpus: [0, 1], durationMinutes: 60, purpose: "train" });
    const [held] = await reservations();
    expect(held).toMatchObject({ name: `gpudesk-${booking.id}`, users: ["ann"], nodes: ["slurm-a"], gpus: 2 });
    expect(Math.abs(held.endsAt! - new Date(booking.endsAt).getTime())).toBeLessThan(1000);
    expect(await db().reservation.findUniqueOrThrow({ where: { id: booking.id }, select: { slurmState: true } })).toEqual({ slurmState: "held" });
    // The booker's view: the reservation, and lines that leave the GPUs' choice to Slurm.
    const { getBooking: getReservation } = await import("@/server/bookings/views/list-bookings");
    const view = await getReservation(ann, booking.id);
    expect(view.slurm).toEqual({ reservation: `gpudesk-${booking.id}`, state: "held", message: null });
    expect(view.launch).toMatchObject({ sbatch: `sbatch --reservation=gpudesk-${booking.id} --gres=gpu:2 job.sh`, srun: `srun --reservation=gpudesk-${booking.id} --gres=gpu:2 --pty bash` });

    const annJob = await sbatch("ann", `--reservation=gpudesk-${booking.id} --gres=gpu:2 -t 10`);
    const bobJob = await sbatch("bob", "-w slurm-a --gres=gpu:8 -t 10");
    const running = await waitFor("ann's job runs", () => job(annJob), (entry) => entry?.state === "running");
    expect(running).toMatchObject({ user: "ann", reservation: `gpudesk-${booking.id}`, gpusPerNode: 2, gpuIndices: { "slurm-a": [0, 1] } });
    expect(await job(bobJob)).toMatchObject({ state: "pending" });

    // ann's job still runs under it: Slurm cannot delete it, so it ends now, and goes with the job.
    await release(ann, booking.id);
    const ended = (await connection.client.listReservations()).find((reservation) => reservation.name === `gpudesk-${booking.id}`);
    expect(ended?.endsAt ?? 0).toBeLessThanOrEqual(Date.now() + 2000);
    await slurm.as("root", `scancel ${annJob}`);
    await waitFor("bob's job starts", () => job(bobJob), (entry) => entry?.state === "running");
    await waitFor("no reservation holds GPUs", reservations, (list) => list.length === 0);
  });

  it("refuses a booking whose GPUs a Slurm job holds: 409 naming the job, nothing in Slurm or gpudesk", async () => {
    // bob's job of the test before holds all 8 GPUs of slurm-a.
    const error = await fx.refusal(create(ann, { host: hosts["slurm-a"], gpus: [2], durationMinutes: 30, purpose: "refused" }));
    expect({ status: error.status, code: error.code }).toEqual({ status: 409, code: "slurm_busy" });
    expect(error.message).toMatch(/^Slurm's jobs hold these GPUs: job \d+ of bob \(8 GPUs on slurm-a, running, until \d{4}-\d\d-\d\d \d\d:\d\d UTC\)\. Nothing was booked$/);
    expect(await db().reservation.count({ where: { userId: ann.id, status: "booked" } })).toBe(0);
    expect(await reservations()).toEqual([]);
    await slurm.as("root", "scancel -u bob; true");
    await waitFor("bob's job ends", () => connection.client.listJobs(), (jobs) => jobs.every((entry) => entry.state === "other"));
  });

  it("shows the indices Slurm gave the booker's job (the booker's run, not a block) and draws another's job as a block", async () => {
    const booking = await create(ann, { host: hosts["slurm-b"], count: 2, durationMinutes: 30, purpose: "indices" });
    const annJob = await sbatch("ann", `--reservation=gpudesk-${booking.id} --gres=gpu:2 -t 10`);
    const bobJob = await sbatch("bob", "-w slurm-b --gres=gpu:6 -t 10");
    const running = await waitFor("ann's job runs", () => job(annJob), (entry) => entry?.state === "running");
    await waitFor("bob's job runs", () => job(bobJob), (entry) => entry?.state === "running");
    await connection.refresh();
    await refreshSlurmCalendar(connection);
    const { getBooking: getReservation } = await import("@/server/bookings/views/list-bookings");
    const view = await getReservation(ann, booking.id);
    expect(running!.gpuIndices["slurm-b"]).toHaveLength(2);
    expect(view.slurm?.jobs).toEqual([{ id: annJob, user: "ann", host: hosts["slurm-b"], gpuIndices: running!.gpuIndices["slurm-b"] }]);
    expect(connection.calendar.runs).toEqual([expect.objectContaining({ bookingId: booking.id, jobId: annJob, hostName: hosts["slurm-b"] })]);
    // bob's job holds its 6 GPUs until its time limit; ann's is no second block.
    const [block] = connection.calendar.blocks;
    expect(connection.calendar.blocks).toHaveLength(1);
    expect(block).toMatchObject({ kind: "job", id: String(bobJob), user: "bob", state: "running", hostName: hosts["slurm-b"] });
    expect(block.gpus.map((gpu) => gpu.index).sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7].filter((index) => !running!.gpuIndices["slurm-b"].includes(index)));
    await slurm.as("root", `scancel ${annJob} ${bobJob}`);
    await release(ann, booking.id);
    await waitFor("jobs end", () => connection.client.listJobs(), (jobs) => jobs.every((entry) => entry.state === "other"));
    await connection.refresh();
    await refreshSlurmCalendar(connection);
  });

  it("refuses a person without a Unix login, and says why", async () => {
    const error = await fx.refusal(create(nobody, { host: hosts["slurm-b"], gpus: [0], durationMinutes: 30, purpose: "no login" }));
    expect({ status: error.status, code: error.code }).toEqual({ status: 409, code: "slurm_no_login" });
    expect(error.message).toContain("has no Unix login in gpudesk");
  });

  it("extends the reservation with the booking, and makes a 2 × 4 booking one reservation over two nodes", async () => {
    const booking = await createAcross(bob, { parts: [{ host: hosts["slurm-a"], gpus: 4 }, { host: hosts["slurm-b"], gpus: 4 }], durationMinutes: 60, purpose: "ddp" });
    expect(await reservations()).toEqual([expect.objectContaining({ name: `gpudesk-${booking.id}`, users: ["bob"], nodes: ["slurm-a", "slurm-b"], gpus: 8, flags: expect.arrayContaining(["TRES_PER_NODE"]) })]);
    const { getBooking: getReservation } = await import("@/server/bookings/views/list-bookings");
    const second = await getReservation(bob, booking.parts[1].id);
    expect(second.slurm).toMatchObject({ reservation: `gpudesk-${booking.id}`, state: "held" });
    expect(second.launch.sbatch).toBe(
      `sbatch -N 2 --ntasks-per-node=1 --reservation=gpudesk-${booking.id} --gres=gpu:4 --wrap 'srun torchrun --nnodes=$SLURM_NNODES --nproc_per_node=4 --rdzv_id=$SLURM_JOB_ID --rdzv_backend=c10d --rdzv_endpoint=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1):29500 train.py'`,
    );
    const extended = await change(bob, booking.id, { addMinutes: 30 });
    expect((await reservations())[0].endsAt).toBe(Math.ceil(new Date(extended.endsAt).getTime() / 1000) * 1000);
    await release(bob, booking.id);
    expect(await reservations()).toEqual([]);
  });

  it("repairs a reservation deleted by hand, flags it missing where a job took the GPUs, deletes orphans", async () => {
    const booking = await create(ann, { host: hosts["slurm-b"], gpus: [0, 1], durationMinutes: 60, purpose: "repaired" });
    await connection.client.deleteReservation(`gpudesk-${booking.id}`);
    const first = await reconcile(connection);
    expect(first).toMatchObject({ remade: [`gpudesk-${booking.id}`], missing: [], orphansDeleted: [] });
    expect(await reservations()).toEqual([expect.objectContaining({ name: `gpudesk-${booking.id}`, users: ["ann"], nodes: ["slurm-b"], gpus: 2 })]);

    await connection.client.deleteReservation(`gpudesk-${booking.id}`);
    const bobJob = await sbatch("bob", "-w slurm-b --gres=gpu:8 -t 10");
    await waitFor("bob's job takes slurm-b", () => job(bobJob), (entry) => entry?.state === "running");
    const second = await reconcile(connection);
    expect(second.missing).toEqual([`gpudesk-${booking.id}`]);
    const row = await db().reservation.findUniqueOrThrow({ where: { id: booking.id }, select: { slurmState: true, slurmMessage: true } });
    expect(row.slurmState).toBe("missing");
    expect(row.slurmMessage).toContain(`job ${bobJob} of bob`);
    expect(await db().auditLog.count({ where: { entityId: booking.id, action: "reservation.slurm_repair" } })).toBe(2);
    // The booker is told once; the next pass, still missing for the same reason, records, audits and tells nothing new.
    const notices = () => db().personNotice.findMany({ where: { userId: ann.id, event: "booking.slurm_missing" }, select: { key: true } });
    await waitFor("ann told", notices, (list) => list.length === 1);
    expect((await reconcile(connection)).missing).toEqual([]);
    expect(await db().auditLog.count({ where: { entityId: booking.id, action: "reservation.slurm_repair" } })).toBe(2);
    expect(await notices()).toHaveLength(1);
    await slurm.as("root", `scancel ${bobJob}`);
    await release(ann, booking.id);

    await connection.client.createReservation({ name: "gpudesk-orphan", users: ["ann"], nodes: ["slurm-a"], gpusPerNode: 1, startsAt: new Date(), endsAt: new Date(Date.now() + 600_000) });
    expect((await reconcile(connection)).orphansDeleted).toEqual(["gpudesk-orphan"]);
    expect(await reservations()).toEqual([]);
  });

  it("Slurm stopped mid-way (slurmrestd really stopped): refuses bookings on its nodes with 503, books nothing, the rest works; once back the reconciler repairs", async () => {
    // Held before Slurm goes away.
    const before = await create(ann, { host: hosts["slurm-a"], gpus: [0], durationMinutes: 30, purpose: "before the outage" });
    expect(await reservations()).toEqual([expect.objectContaining({ name: `gpudesk-${before.id}` })]);
    await slurm.stopRestd();
    try {
      const error = await fx.refusal(create(ann, { host: hosts["slurm-a"], gpus: [1], durationMinutes: 30, purpose: "while away" }));
      expect({ status: error.status, code: error.code }).toEqual({ status: 503, code: "slurm_unavailable" });
      expect(error.message).toMatch(/cannot be reached.*Bookings on its nodes \(slurm-a\) are refused until it answers; nothing was booked$/);
      expect(connection.status.state).toBe("down");
      expect(await db().reservation.count({ where: { userId: ann.id, status: "booked", purpose: "while away" } })).toBe(0);
      // An end goes through while Slurm is away (its reservation stays there until Slurm answers).
      await release(ann, before.id);
      // Hosts outside Slurm book as ever.
      const plain = await fx.createTestHost(1);
      await expect(create(ann, { host: plain.name, gpus: [0], durationMinutes: 30, purpose: "elsewhere" })).resolves.toMatchObject({ status: "booked" });
      // The reconciler's pass fails and says so; nothing of gpudesk's is touched.
      await expect(reconcile(connection)).rejects.toThrow(/cannot be reached/);
      expect(connection.status.state).toBe("down");
    } finally {
      await slurm.startRestd();
    }
    // Back: the first pass deletes the reservation of the booking released meanwhile, and the fleet says Slurm is up.
    const pass = await reconcile(connection);
    expect(pass.orphansDeleted).toEqual([`gpudesk-${before.id}`]);
    expect(connection.status.state).toBe("up");
    expect(await reservations()).toEqual([]);
    const after = await create(ann, { host: hosts["slurm-a"], gpus: [1], durationMinutes: 30, purpose: "after the outage" });
    expect(after).toMatchObject({ status: "booked" });
    await release(ann, after.id);
  });
});
