import { describe, expect, it } from "vitest";
import type { LiveBooking } from "@/lib/live/live";
import type { ProcessInfo } from "@/lib/domain/snapshot";
import { attributeProcesses } from "@/server/attribution/attribute-processes";
import { deriveGpuState } from "@/lib/domain/gpu-availability";
import { staticDirectory } from "@/server/attribution/user-directory";
import { checkProcessClaims, bookingClaimValue } from "@/server/bookings/rules/booking-proof";
import { makeGpu, makeProcess } from "@/server/testing/factories";

const alice = { id: "u-alice", username: "alice", name: "Alice" };
const bob = { id: "u-bob", username: "bob", name: "Bob" };
const carol = { id: "u-carol", username: "carol", name: "Carol" };
const directory = staticDirectory([
  { ...alice, unixLogin: "alice" },
  { ...bob, unixLogin: "bob" },
  { ...carol, unixLogin: "carol" },
]);

const gpu = makeGpu({ index: 2 });

function booking(bookingId: string, bookedBy = alice, uuid = gpu.uuid): LiveBooking {
  return {
    reservationId: bookingId,
    hostId: "h1",
    hostName: "node-a",
    gpus: [{ uuid, index: 2 }],
    bookedBy,
    startsAt: "2026-11-30T08:00:00.000Z",
    endsAt: "2026-11-30T20:00:00.000Z",
    purpose: "test",
  };
}

function proc(pid: number, overrides: Partial<ProcessInfo>): ProcessInfo {
  return makeProcess(gpu, { pid, ...overrides });
}

const SECRET = "the-test-servers-auth-secret-0123456789";
/** What `gpudesk run` puts in the booker's job: the id with its proof. */
const proofOf = (bookingId: string) => bookingClaimValue(bookingId, SECRET);

/** The processes as the agent reports them, checked on arrival as the server does (server/fleet/ingest.ts), then attributed. */
function attribute(processes: ProcessInfo[], bookings: LiveBooking[] = [booking("res-alice")]) {
  return attributeProcesses(checkProcessClaims(processes, SECRET), { bookings: new Map(bookings.map((entry) => [entry.reservationId, entry])), directory });
}

describe("attributeProcesses", () => {
  it("takes GPUDESK_RESERVATION over the cgroup and the login", () => {
    const result = attribute([proc(10, { user: "bob", container: "3f2a1b9c0d4e", reservationId: proofOf("res-alice") })]);
    expect(result.get(10)).toMatchObject({ runner: alice, reservationId: "res-alice", login: "bob", evidence: { kind: "reservation", value: "res-alice" } });
    expect(result.get(10)?.falseClaim).toBeUndefined();
  });

  it("takes the cgroup's job over the login, and shows the job's id", () => {
    const result = attribute([
      proc(20, { user: "bob", slurmJobId: "4711" }),
      proc(21, { user: "bob", container: "pod:8f1c2d3e-4a5b-6c7d-8e9f-0a1b2c3d4e5f" }),
      proc(22, { user: "bob", container: "3f2a1b9c0d4e" }),
    ]);
    expect(result.get(20)?.evidence).toEqual({ kind: "slurm", value: "4711" });
    expect(result.get(21)?.evidence).toEqual({ kind: "pod", value: "pod:8f1c2d3e-4a5b-6c7d-8e9f-0a1b2c3d4e5f" });
    expect(result.get(22)?.evidence).toEqual({ kind: "container", value: "3f2a1b9c0d4e" });
    expect([20, 21, 22].map((pid) => result.get(pid)?.runner)).toEqual([bob, bob, bob]);
  });

  it("falls back to the Unix login, and to nobody for a login without a person", () => {
    const result = attribute([proc(30, { user: "carol" }), proc(31, { user: "mallory" }), proc(32, { user: null })]);
    expect(result.get(30)).toMatchObject({ runner: carol, evidence: { kind: "login", value: "carol" } });
    expect(result.get(31)).toMatchObject({ runner: null, login: "mallory", evidence: { kind: "login", value: "mallory" } });
    expect(result.get(32)).toMatchObject({ runner: null, evidence: { kind: "none", value: null } });
  });

  it("gives a container's root-owned workers to the container's owner", () => {
    const result = attribute([proc(41, { user: "root", container: "aaaaaaaaaaaa" }), proc(40, { user: "carol", container: "aaaaaaaaaaaa" })]);
    expect(result.get(41)).toMatchObject({ runner: carol, login: "root", evidence: { kind: "container", value: "aaaaaaaaaaaa" } });
  });

  it("gives a whole job to the booking that one of its processes names", () => {
    const result = attribute([
      proc(50, { user: "root", container: "bbbbbbbbbbbb", reservationId: proofOf("res-alice") }),
      proc(51, { user: "bob", container: "bbbbbbbbbbbb" }),
    ]);
    expect(result.get(51)).toMatchObject({ runner: alice, reservationId: "res-alice", evidence: { kind: "container", value: "bbbbbbbbbbbb" } });
  });

  it("ignores a GPUDESK_RESERVATION that names no active or upcoming booking", () => {
    const result = attribute([proc(60, { user: "bob", reservationId: proofOf("res-long-gone") })]);
    expect(result.get(60)).toMatchObject({ runner: bob, reservationId: null, evidence: { kind: "login", value: "bob" } });
    expect(result.get(60)?.falseClaim).toBeUndefined();
  });

  it("takes a booking's bare id (readable by everyone) as a false claim, and attributes by the other evidence", () => {
    const result = attribute([proc(70, { user: "bob", reservationId: "res-alice" }), proc(71, { user: "bob", container: "cccccccccccc", reservationId: "res-alice" })]);
    expect(result.get(70)).toMatchObject({ runner: bob, reservationId: null, falseClaim: "res-alice", evidence: { kind: "login", value: "bob" } });
    expect(result.get(71)).toMatchObject({ runner: bob, reservationId: null, falseClaim: "res-alice", evidence: { kind: "container", value: "cccccccccccc" } });
  });

  it("takes one's own booking's proof on someone else's booking as a false claim", () => {
    const bookings = [booking("res-alice"), booking("res-bob", bob, "GPU-other")];
    const borrowed = `res-alice.${proofOf("res-bob").split(".")[1]}`;
    const result = attribute([proc(80, { user: "bob", reservationId: borrowed }), proc(81, { user: "bob", reservationId: proofOf("res-bob") })], bookings);
    expect(result.get(80)).toMatchObject({ runner: bob, reservationId: null, falseClaim: "res-alice", evidence: { kind: "login", value: "bob" } });
    // Bob's own proof does prove Bob's booking.
    expect(result.get(81)).toMatchObject({ runner: bob, reservationId: "res-bob", evidence: { kind: "reservation", value: "res-bob" } });
  });

  it("does not let a false claim give a whole job to the booking", () => {
    const result = attribute([
      proc(90, { user: "bob", container: "dddddddddddd", reservationId: "res-alice" }),
      proc(91, { user: "root", container: "dddddddddddd" }),
    ]);
    expect(result.get(91)).toMatchObject({ runner: bob, reservationId: null, evidence: { kind: "container", value: "dddddddddddd" } });
  });
});

describe("deriveGpuState", () => {
  const state = (processes: ProcessInfo[], options: { booked?: boolean; online?: boolean; ecc?: number } = {}) => {
    const bookings = options.booked === false ? [] : [booking("res-alice")];
    return deriveGpuState({
      gpu: { processes, eccErrorsUncorrected: options.ecc ?? 0, memoryUsedMiB: 0, memoryTotalMiB: 81_559, utilizationGpuPct: 0 },
      online: options.online ?? true,
      booking: bookings[0] ?? null,
      attributions: attribute(processes, bookings),
    });
  };

  it("tells free, booked idle, booked in use, use without booking and conflict apart", () => {
    expect(state([], { booked: false }).state).toBe("free");
    expect(state([]).state).toBe("booked_idle");
    expect(state([proc(1, { user: "alice" })]).state).toBe("booked_in_use");
    expect(state([proc(1, { user: "bob" })], { booked: false }).state).toBe("unbooked_use");
    const conflict = state([proc(1, { user: "alice" }), proc(2, { user: "bob" })]);
    expect(conflict.state).toBe("conflict");
    expect(conflict.bookedBy).toEqual(alice);
    expect(conflict.processes.map((process) => [process.pid, process.intruder])).toEqual([
      [1, false],
      [2, true],
    ]);
  });

  it("counts a process nobody can be named for as an intruder on a booked GPU", () => {
    expect(state([proc(1, { user: "mallory" })]).state).toBe("conflict");
  });

  it("counts the booker's job launched by someone else's account as the booker's", () => {
    expect(state([proc(1, { user: "bob", reservationId: proofOf("res-alice") })]).state).toBe("booked_in_use");
  });

  it("shows a member hiding on someone else's booking with its id as an intruder, with the false claim", () => {
    const hiding = state([proc(1, { user: "alice" }), proc(2, { user: "bob", reservationId: "res-alice" })]);
    expect(hiding.state).toBe("conflict");
    expect(hiding.processes[1]).toMatchObject({ pid: 2, runner: bob, intruder: true, falseClaim: "res-alice" });
  });

  it("puts offline before error before conflict", () => {
    const intruder = [proc(1, { user: "bob" })];
    expect(state(intruder, { online: false, ecc: 3 }).state).toBe("offline");
    const error = state(intruder, { ecc: 3 });
    expect(error.state).toBe("error");
    expect(error.problem).toBe("3 uncorrected ECC errors");
  });
});
