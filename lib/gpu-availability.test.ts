import { describe, expect, it } from "vitest";
import type { GpuState } from "@/lib/attribution";
import {
  deriveGpuState,
  describeAvailability,
  GPU_STATES,
  isGpuFree,
  isGpuFreeFor,
  type ProcessOwner,
  summarizeAvailability,
} from "@/lib/gpu-availability";

const alice = { id: "u-alice", username: "alice", name: "Alice" };
const bob = { id: "u-bob", username: "bob", name: "Bob" };
const aliceBooking = { reservationId: "res-alice", holder: alice };

function owner(pid: number, person: typeof alice | null, login: string): ProcessOwner {
  return { pid, person, reservationId: null, login, evidence: { kind: "login", value: login } };
}

function state(
  processes: { pid: number; user: string | null; person?: typeof alice | null }[],
  options: { booking?: typeof aliceBooking | null; online?: boolean; ecc?: number | null } = {},
) {
  const attributions = new Map(
    processes.filter((process) => process.person !== undefined).map((process) => [process.pid, owner(process.pid, process.person ?? null, process.user ?? "")]),
  );
  return deriveGpuState({
    gpu: { processes, eccErrorsUncorrected: options.ecc === undefined ? 0 : options.ecc },
    online: options.online ?? true,
    booking: options.booking === undefined ? aliceBooking : options.booking,
    attributions,
  });
}

describe("deriveGpuState", () => {
  it("calls a GPU free only when nothing holds it and nothing runs there", () => {
    expect(state([], { booking: null }).state).toBe("free");
    expect(state([{ pid: 1, user: "bob", person: bob }], { booking: null }).state).toBe("unbooked_use");
    // A process nobody is known for still makes the GPU busy.
    expect(state([{ pid: 1, user: null }], { booking: null }).state).toBe("unbooked_use");
    expect(state([]).state).toBe("booked_idle");
  });

  it("tells the holder's use from an intruder's", () => {
    expect(state([{ pid: 1, user: "alice", person: alice }]).state).toBe("booked_in_use");
    const conflict = state([
      { pid: 1, user: "alice", person: alice },
      { pid: 2, user: "bob", person: bob },
    ]);
    expect(conflict.state).toBe("conflict");
    expect(conflict.holder).toEqual(alice);
    expect(conflict.processes.map((process) => [process.pid, process.intruder])).toEqual([
      [1, false],
      [2, true],
    ]);
    // Unknown login on a booked GPU: not proven to be the holder's.
    expect(state([{ pid: 3, user: "mallory" }]).state).toBe("conflict");
  });

  it("puts offline before error before conflict, and lists each pid once", () => {
    const intruder = [{ pid: 1, user: "bob", person: bob }];
    expect(state(intruder, { online: false, ecc: 3 }).state).toBe("offline");
    const error = state(intruder, { ecc: 1 });
    expect(error.state).toBe("error");
    expect(error.problem).toBe("1 uncorrected ECC error");
    expect(state([], { booking: null, ecc: null }).state).toBe("free");
    expect(state([{ pid: 5, user: "bob" }, { pid: 5, user: "bob" }], { booking: null }).processes).toHaveLength(1);
  });
});

describe("isGpuFree / isGpuFreeFor", () => {
  it("offers only free GPUs to anyone", () => {
    expect(GPU_STATES.filter(isGpuFree)).toEqual(["free"]);
  });

  it("lets a person claim a GPU that runs only their own unbooked job", () => {
    const own = state([{ pid: 1, user: "alice", person: alice }], { booking: null });
    expect(isGpuFreeFor(own, alice.id)).toBe(true);
    expect(isGpuFreeFor(own, bob.id)).toBe(false);
    const mixed = state([{ pid: 1, user: "alice", person: alice }, { pid: 2, user: "bob", person: bob }], { booking: null });
    expect(isGpuFreeFor(mixed, alice.id)).toBe(false);
    // Booked by someone: never free, whoever asks.
    expect(isGpuFreeFor(state([]), bob.id)).toBe(false);
  });
});

describe("summarizeAvailability", () => {
  it("counts per host and for the fleet, and says it in words", () => {
    const gpus: { host: string; state: GpuState }[] = [
      { host: "sim-h100-a", state: "free" },
      ...Array.from({ length: 6 }, () => ({ host: "sim-h100-a", state: "unbooked_use" as const })),
      { host: "sim-h100-a", state: "booked_idle" },
      { host: "sim-a100-b", state: "free" },
      { host: "sim-a100-b", state: "error" },
    ];
    const summary = summarizeAvailability(gpus);
    expect(summary.fleet.total).toBe(10);
    expect(summary.fleet.free).toBe(2);
    expect(describeAvailability(summary.hosts["sim-h100-a"])).toBe("1 of 8 free, 6 in use without a booking, 1 booked and idle");
    expect(describeAvailability(summary.hosts["sim-a100-b"])).toBe("1 of 2 free, 1 with an error");
    expect(describeAvailability(summarizeAvailability([]).fleet)).toBe("0 of 0 free");
  });
});
