import { describe, expect, it } from "vitest";
import type { LiveBooking } from "@/lib/live";
import type { ProcessInfo } from "@/lib/snapshot";
import { attributeProcesses } from "@/server/attribution/attribute-processes";
import { deriveGpuState } from "@/lib/gpu-availability";
import { staticDirectory } from "@/server/attribution/user-directory";
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

function booking(reservationId: string, holder = alice, uuid = gpu.uuid): LiveBooking {
  return {
    reservationId,
    hostId: "h1",
    hostName: "node-a",
    gpus: [{ uuid, index: 2 }],
    holder,
    startsAt: "2026-11-30T08:00:00.000Z",
    endsAt: "2026-11-30T20:00:00.000Z",
    purpose: "test",
  };
}

function proc(pid: number, overrides: Partial<ProcessInfo>): ProcessInfo {
  return makeProcess(gpu, { pid, ...overrides });
}

function attribute(processes: ProcessInfo[], bookings: LiveBooking[] = [booking("res-alice")]) {
  return attributeProcesses(processes, { bookings: new Map(bookings.map((entry) => [entry.reservationId, entry])), directory });
}

describe("attributeProcesses", () => {
  it("takes GPUDESK_RESERVATION over the cgroup and the login", () => {
    const result = attribute([proc(10, { user: "bob", container: "3f2a1b9c0d4e", reservationId: "res-alice" })]);
    expect(result.get(10)).toMatchObject({ person: alice, reservationId: "res-alice", login: "bob", evidence: { kind: "reservation", value: "res-alice" } });
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
    expect([20, 21, 22].map((pid) => result.get(pid)?.person)).toEqual([bob, bob, bob]);
  });

  it("falls back to the Unix login, and to nobody for a login without a person", () => {
    const result = attribute([proc(30, { user: "carol" }), proc(31, { user: "mallory" }), proc(32, { user: null })]);
    expect(result.get(30)).toMatchObject({ person: carol, evidence: { kind: "login", value: "carol" } });
    expect(result.get(31)).toMatchObject({ person: null, login: "mallory", evidence: { kind: "login", value: "mallory" } });
    expect(result.get(32)).toMatchObject({ person: null, evidence: { kind: "none", value: null } });
  });

  it("gives a container's root-owned workers to the container's owner", () => {
    const result = attribute([proc(41, { user: "root", container: "aaaaaaaaaaaa" }), proc(40, { user: "carol", container: "aaaaaaaaaaaa" })]);
    expect(result.get(41)).toMatchObject({ person: carol, login: "root", evidence: { kind: "container", value: "aaaaaaaaaaaa" } });
  });

  it("gives a whole job to the booking that one of its processes names", () => {
    const result = attribute([
      proc(50, { user: "root", container: "bbbbbbbbbbbb", reservationId: "res-alice" }),
      proc(51, { user: "bob", container: "bbbbbbbbbbbb" }),
    ]);
    expect(result.get(51)).toMatchObject({ person: alice, reservationId: "res-alice", evidence: { kind: "container", value: "bbbbbbbbbbbb" } });
  });

  it("ignores a GPUDESK_RESERVATION that names no active or upcoming booking", () => {
    const result = attribute([proc(60, { user: "bob", reservationId: "res-long-gone" })]);
    expect(result.get(60)).toMatchObject({ person: bob, reservationId: null, evidence: { kind: "login", value: "bob" } });
  });
});

describe("deriveGpuState", () => {
  const state = (processes: ProcessInfo[], options: { booked?: boolean; online?: boolean; ecc?: number } = {}) => {
    const bookings = options.booked === false ? [] : [booking("res-alice")];
    return deriveGpuState({
      gpu: { processes, eccErrorsUncorrected: options.ecc ?? 0 },
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
    expect(conflict.holder).toEqual(alice);
    expect(conflict.processes.map((process) => [process.pid, process.intruder])).toEqual([
      [1, false],
      [2, true],
    ]);
  });

  it("counts a process nobody can be named for as an intruder on a booked GPU", () => {
    expect(state([proc(1, { user: "mallory" })]).state).toBe("conflict");
  });

  it("counts the holder's job launched by someone else's account as the holder's", () => {
    expect(state([proc(1, { user: "bob", reservationId: "res-alice" })]).state).toBe("booked_in_use");
  });

  it("puts offline before error before conflict", () => {
    const intruder = [proc(1, { user: "bob" })];
    expect(state(intruder, { online: false, ecc: 3 }).state).toBe("offline");
    const error = state(intruder, { ecc: 3 });
    expect(error.state).toBe("error");
    expect(error.problem).toBe("3 uncorrected ECC errors");
  });
});
