import { afterEach, describe, expect, it } from "vitest";
import type { LiveBooking } from "@/lib/live/live";
import { attributeProcesses } from "@/server/attribution/attribute-processes";
import { staticDirectory } from "@/server/attribution/user-directory";
import { createFakeProcTree, type FakeProcTree } from "@/host/collector/proc/fake-proc-tree";
import { createUserLookup } from "@/host/collector/proc/lookup-user";
import { createProcReader, enrichProcesses } from "@/host/collector/proc/proc-reader";
import { checkProcessClaims, bookingClaimValue } from "@/server/bookings/rules/booking-proof";
import { makeGpu, makeProcess, makeSnapshot } from "@/server/testing/factories";

/**
 * The agent's side and the server's side together, on a fake /proc tree:
 * the agent reads owner, cgroup and environment of each GPU process, the
 * server attributes them. The same owner (bob) is attributed three ways,
 * by the best evidence each process offers.
 */

const DOCKER_ID = "3f2a1b9c0d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccddeef";
const trees: FakeProcTree[] = [];
afterEach(async () => {
  await Promise.all(trees.splice(0).map((tree) => tree.cleanup()));
});

const SECRET = "the-test-servers-auth-secret-0123456789";
const alice = { id: "u-alice", username: "alice", name: "Alice" };
const bob = { id: "u-bob", username: "bob", name: "Bob" };

describe("attribution from a /proc tree", () => {
  it("orders the evidence: environment over cgroup over login", async () => {
    const tree = await createFakeProcTree({
      btime: 1_700_000_000,
      processes: [
        // Launched with `gpudesk run` inside a container: the environment names Alice's booking.
        { pid: 100, uid: 1001, cgroup: `0::/system.slice/docker-${DOCKER_ID}.scope\n`, environ: ["PATH=/usr/bin", `GPUDESK_RESERVATION=${bookingClaimValue("res-alice", SECRET)}`] },
        // The same container, without the variable: the container.
        { pid: 101, uid: 1001, cgroup: `0::/system.slice/docker-${DOCKER_ID}.scope\n` },
        // A Slurm job: the job.
        { pid: 102, uid: 1001, cgroup: "0::/system.slice/slurmstepd.scope/job_4711/step_0/user/task_0\n" },
        // A plain SSH session: the login.
        { pid: 103, uid: 1001, cgroup: "0::/user.slice/user-1001.slice/session-7.scope\n" },
      ],
    });
    trees.push(tree);
    const reader = createProcReader({ procRoot: tree.procRoot, lookupUser: createUserLookup({ passwdPath: tree.passwdPath, getent: false }) });

    // What nvidia-smi reports: pids and memory, no owners.
    const gpu = makeGpu();
    const fromNvidiaSmi = [100, 101, 102, 103].map((pid) =>
      makeProcess(gpu, { pid, user: null, command: null, startedAt: null, container: null, slurmJobId: null, reservationId: null }),
    );
    const snapshot = await enrichProcesses(makeSnapshot([gpu], Date.now(), { processes: fromNvidiaSmi }), reader);
    expect(snapshot.processes.map((process) => process.user)).toEqual(["bob", "bob", "bob", "bob"]);

    const booking: LiveBooking = {
      reservationId: "res-alice",
      hostId: "h1",
      hostName: "node-a",
      gpus: [{ uuid: gpu.uuid, index: 0 }],
      bookedBy: alice,
      startsAt: new Date(Date.now() - 60_000).toISOString(),
      endsAt: new Date(Date.now() + 3_600_000).toISOString(),
      purpose: "proc test",
    };
    // As the server takes the reading in: each GPUDESK_RESERVATION's proof checked (server/fleet/ingest.ts).
    const attributions = attributeProcesses(checkProcessClaims(snapshot.processes, SECRET), {
      bookings: new Map([[booking.reservationId, booking]]),
      directory: staticDirectory([
        { ...alice, unixLogin: "alice" },
        { ...bob, unixLogin: "bob" },
      ]),
    });

    expect(attributions.get(100)).toMatchObject({ runner: alice, evidence: { kind: "reservation", value: "res-alice" } });
    // The container's other process belongs to the booking its sibling named.
    expect(attributions.get(101)).toMatchObject({ runner: alice, evidence: { kind: "container", value: DOCKER_ID.slice(0, 12) } });
    expect(attributions.get(102)).toMatchObject({ runner: bob, evidence: { kind: "slurm", value: "4711" } });
    expect(attributions.get(103)).toMatchObject({ runner: bob, evidence: { kind: "login", value: "bob" } });
  });

  it("proves a booking only with its proof: a bare id, a guessed proof or another booking's proof is a false claim", async () => {
    const bobs = "res-bob";
    const tree = await createFakeProcTree({
      btime: 1_700_000_000,
      processes: [
        { pid: 200, uid: 1001, environ: [`GPUDESK_RESERVATION=${bookingClaimValue("res-alice", SECRET)}`] },
        { pid: 201, uid: 1001, environ: ["GPUDESK_RESERVATION=res-alice"] },
        { pid: 202, uid: 1001, environ: [`GPUDESK_RESERVATION=res-alice.${"x".repeat(32)}`] },
        { pid: 203, uid: 1001, environ: [`GPUDESK_RESERVATION=res-alice.${bookingClaimValue(bobs, SECRET).split(".")[1]}`] },
      ],
    });
    trees.push(tree);
    const reader = createProcReader({ procRoot: tree.procRoot, lookupUser: createUserLookup({ passwdPath: tree.passwdPath, getent: false }) });
    const gpu = makeGpu();
    const fromNvidiaSmi = [200, 201, 202, 203].map((pid) =>
      makeProcess(gpu, { pid, user: null, command: null, startedAt: null, container: null, slurmJobId: null, reservationId: null }),
    );
    const snapshot = await enrichProcesses(makeSnapshot([gpu], Date.now(), { processes: fromNvidiaSmi }), reader);
    // The agent reports the value as it is; only the server can tell a proof.
    expect(snapshot.processes[0].reservationId).toBe(bookingClaimValue("res-alice", SECRET));

    const window = { startsAt: new Date(Date.now() - 60_000).toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString(), purpose: "proc test" };
    const bookings: LiveBooking[] = [
      { reservationId: "res-alice", hostId: "h1", hostName: "node-a", gpus: [{ uuid: gpu.uuid, index: 0 }], bookedBy: alice, ...window },
      { reservationId: bobs, hostId: "h1", hostName: "node-a", gpus: [{ uuid: "GPU-bobs", index: 1 }], bookedBy: bob, ...window },
    ];
    const attributions = attributeProcesses(checkProcessClaims(snapshot.processes, SECRET), {
      bookings: new Map(bookings.map((booking) => [booking.reservationId, booking])),
      directory: staticDirectory([
        { ...alice, unixLogin: "alice" },
        { ...bob, unixLogin: "bob" },
      ]),
    });
    expect(attributions.get(200)).toMatchObject({ runner: alice, reservationId: "res-alice", evidence: { kind: "reservation" } });
    for (const pid of [201, 202, 203]) {
      expect(attributions.get(pid)).toMatchObject({ runner: bob, reservationId: null, falseClaim: "res-alice", evidence: { kind: "login", value: "bob" } });
    }
  });
});
