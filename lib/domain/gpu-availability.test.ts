import { describe, expect, it } from "vitest";
import type { GpuState } from "@/lib/domain/attribution";
import {
  countAvailability,
  deriveGpuState,
  describeAvailability,
  GPU_STATES,
  isGpuFree,
  isGpuFreeFor,
  useFor,
  type ProcessOwner,
  type StateReading,
  summarizeAvailability,
  unseenMemoryThresholdMiB,
  unitName,
  unitsPhrase,
  unseenUsePhrase,
} from "@/lib/domain/gpu-availability";

const alice = { id: "u-alice", username: "alice", name: "Alice" };
const bob = { id: "u-bob", username: "bob", name: "Bob" };
const aliceBooking = { reservationId: "res-alice", bookedBy: alice };

function owner(pid: number, person: typeof alice | null, login: string): ProcessOwner {
  return { pid, runner: person, reservationId: null, login, evidence: { kind: "login", value: login } };
}

function state(
  processes: { pid: number; user: string | null; person?: typeof alice | null }[],
  options: { booking?: typeof aliceBooking | null; online?: boolean; ecc?: number | null; reading?: Partial<StateReading> } = {},
) {
  const attributions = new Map(
    processes.filter((process) => process.person !== undefined).map((process) => [process.pid, owner(process.pid, process.person ?? null, process.user ?? "")]),
  );
  return deriveGpuState({
    gpu: {
      processes,
      eccErrorsUncorrected: options.ecc === undefined ? 0 : options.ecc,
      memoryUsedMiB: 0,
      memoryTotalMiB: 81_559,
      utilizationGpuPct: 0,
      ...options.reading,
    },
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

  it("tells the booker's use from an intruder's", () => {
    expect(state([{ pid: 1, user: "alice", person: alice }]).state).toBe("booked_in_use");
    const conflict = state([
      { pid: 1, user: "alice", person: alice },
      { pid: 2, user: "bob", person: bob },
    ]);
    expect(conflict.state).toBe("conflict");
    expect(conflict.bookedBy).toEqual(alice);
    expect(conflict.processes.map((process) => [process.pid, process.intruder])).toEqual([
      [1, false],
      [2, true],
    ]);
    // Unknown login on a booked GPU: not proven to be the booker's.
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

/** Readings of real GPUs (/work/shared/fixtures/nvidia-smi), as if nvidia-smi listed none of their processes. */
const H100_IDLE = { memoryUsedMiB: 0, memoryTotalMiB: 81_559, utilizationGpuPct: 0 }; // csv …h100-80gb-hbm3…idle.csv
const P100_IDLE = { memoryUsedMiB: 0, memoryTotalMiB: 16_384, utilizationGpuPct: 0 }; // xml netdata__tesla-p100.xml
const RTX3060_IDLE = { memoryUsedMiB: 116, memoryTotalMiB: 12_288, utilizationGpuPct: 0 }; // xml telegraf__rtx-3060-v12.xml, the most an idle GPU held
const A100_MIG_IDLE = { memoryUsedMiB: 38, memoryTotalMiB: 40_960, utilizationGpuPct: null }; // xml netdata__a100-sxm4-mig.xml
const H100_MIG_LOAD = { memoryUsedMiB: 11_125, memoryTotalMiB: 81_559, utilizationGpuPct: null }; // csv …h100-mig…load.csv
const RTX3080_UNLISTED = { memoryUsedMiB: 9_184, memoryTotalMiB: 10_240, utilizationGpuPct: 65 }; // xml telegraf__rtx-3080-v13.xml: no process listed
const GT1030_DESKTOP = { memoryUsedMiB: 875, memoryTotalMiB: 1_998, utilizationGpuPct: 0 }; // xml telegraf__gt-1030.xml (a 2 GB card)

describe("use with no visible process", () => {
  const unbooked = (reading: Partial<StateReading>) => state([], { booking: null, reading });

  it("keeps idle GPUs free: the fixtures' idle readings are all under the thresholds", () => {
    for (const reading of [H100_IDLE, P100_IDLE, RTX3060_IDLE, A100_MIG_IDLE]) {
      expect(unbooked(reading)).toMatchObject({ state: "free" });
      expect(unbooked(reading)).not.toHaveProperty("unseenUse");
    }
    // Nothing read at all (N/A): nothing to go on.
    expect(unbooked({ memoryUsedMiB: null, utilizationGpuPct: null }).state).toBe("free");
  });

  it("calls a GPU that holds memory with no process in use, not free", () => {
    // The case found on a netns host: 87 %, 40 GiB of 80, no process listed.
    expect(unbooked({ memoryUsedMiB: 40_960, memoryTotalMiB: 81_920, utilizationGpuPct: 87 })).toMatchObject({
      state: "unbooked_use",
      processes: [],
      unseenUse: { memoryMiB: 40_960 },
    });
    expect(unbooked(H100_MIG_LOAD)).toMatchObject({ state: "unbooked_use", unseenUse: { memoryMiB: 10_240 } });
    expect(unbooked(RTX3080_UNLISTED).state).toBe("unbooked_use");
    expect(isGpuFree(unbooked(H100_MIG_LOAD).state)).toBe(false);
  });

  it("does not change with every reading of a steady job: the state is sent again only when it changes", () => {
    const first = unbooked({ memoryUsedMiB: 40_960, utilizationGpuPct: 87 });
    expect(unbooked({ memoryUsedMiB: 41_900, utilizationGpuPct: 12 })).toEqual(first);
    expect(unbooked({ memoryUsedMiB: 41_984, utilizationGpuPct: 87 }).unseenUse).toEqual({ memoryMiB: 41_984 });
  });

  it("uses 1 GiB, or 10 % of a small card, never under 256 MiB", () => {
    expect(unseenMemoryThresholdMiB(81_559)).toBe(1024);
    expect(unseenMemoryThresholdMiB(null)).toBe(1024);
    expect(unseenMemoryThresholdMiB(8_192)).toBeCloseTo(819.2);
    expect(unseenMemoryThresholdMiB(1_024)).toBe(256);
    expect(unbooked({ memoryUsedMiB: 1_023 }).state).toBe("free");
    expect(unbooked({ memoryUsedMiB: 1_024 }).state).toBe("unbooked_use");
    expect(unbooked(GT1030_DESKTOP).state).toBe("unbooked_use");
    expect(unbooked({ ...GT1030_DESKTOP, memoryUsedMiB: 200 }).state).toBe("free");
  });

  it("counts utilization only while a context's worth of memory is held", () => {
    // A one-second spike of a job that already exited: busy over the last period, nothing held now.
    expect(unbooked({ memoryUsedMiB: 0, utilizationGpuPct: 100 }).state).toBe("free");
    expect(unbooked({ memoryUsedMiB: 200, utilizationGpuPct: 100 }).state).toBe("free");
    // A small job still running: its context held, and busy.
    expect(unbooked({ memoryUsedMiB: 512, utilizationGpuPct: 40 })).toMatchObject({ state: "unbooked_use", unseenUse: { memoryMiB: 512 } });
    expect(unbooked({ memoryUsedMiB: 512, utilizationGpuPct: 9 }).state).toBe("free");
  });

  it("is the booker's use on a booked GPU, not an idle booking and not a conflict", () => {
    expect(state([], { reading: H100_MIG_LOAD })).toMatchObject({ state: "booked_in_use", bookedBy: alice, unseenUse: { memoryMiB: 10_240 } });
    expect(state([], { reading: H100_IDLE }).state).toBe("booked_idle");
  });

  it("leaves a GPU with listed processes to its processes", () => {
    const listed = state([{ pid: 1, user: "bob", person: bob }], { booking: null, reading: H100_MIG_LOAD });
    expect(listed.state).toBe("unbooked_use");
    expect(listed).not.toHaveProperty("unseenUse");
    expect(isGpuFreeFor(listed, bob.id)).toBe(true);
  });

  it("is nobody's to claim: not free for anyone", () => {
    const unseen = unbooked(H100_MIG_LOAD);
    expect(isGpuFreeFor(unseen, alice.id)).toBe(false);
    expect(isGpuFreeFor(unseen, bob.id)).toBe(false);
  });

  it("says what is held", () => {
    expect(unseenUsePhrase(40_960)).toBe("no process visible (40 GiB held)");
    expect(unseenUsePhrase(11_125)).toBe("no process visible (11 GiB held)");
    expect(unseenUsePhrase(1_280)).toBe("no process visible (1.3 GiB held)");
    expect(unseenUsePhrase(640)).toBe("no process visible (640 MiB held)");
    expect(unseenUsePhrase(null)).toBe("no process visible");
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

  it("useFor: free, mine or busy, with the others' processes named, the same for every surface", () => {
    const own = state([{ pid: 1, user: "alice", person: alice }], { booking: null });
    expect(useFor(own, alice.id)).toEqual({ kind: "mine", others: [], unseen: false });
    expect(useFor(own, bob.id)).toMatchObject({ kind: "busy", others: [{ pid: 1 }], unseen: false });
    expect(useFor(state([], { booking: null }), bob.id)).toEqual({ kind: "free", others: [], unseen: false });
    const hidden = { processes: [], unseenUse: { memoryMiB: 9_184 } } as unknown as Parameters<typeof useFor>[0];
    expect(useFor(hidden, alice.id)).toEqual({ kind: "busy", others: [], unseen: true });
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

describe("unitName", () => {
  it("names a whole GPU and a slice as the fleet card does, and a booking's units in one phrase", () => {
    expect(unitName({ index: 2 })).toBe("GPU 2");
    expect(unitName({ index: 0, mig: { deviceIndex: 2, profile: "1g.10gb" } })).toBe("GPU 0:2 (1g.10gb)");
    expect(unitsPhrase([{ index: 2 }, { index: 3 }])).toBe("GPUs 2, 3");
    expect(unitsPhrase([{ index: 1 }, { index: 0, mig: { deviceIndex: 2, profile: "1g.10gb" } }])).toBe("GPU 1, GPU 0:2 (1g.10gb)");
  });
});

describe("a GPU split into MIG slices", () => {
  it("is partitioned, never free, and is not counted as a unit; its slices are", () => {
    const gpu = { index: 0, uuid: "GPU-split", memoryUsedMiB: 0, memoryTotalMiB: 81559, utilizationGpuPct: null, eccErrorsUncorrected: 0, processes: [], migMode: "Enabled" };
    const split = deriveGpuState({ gpu, online: true, booking: null, attributions: new Map() });
    expect(split.state).toBe("partitioned");
    expect(isGpuFree(split.state)).toBe(false);
    expect(deriveGpuState({ gpu, online: false, booking: null, attributions: new Map() }).state).toBe("offline");
    expect(describeAvailability(countAvailability(["partitioned", "free", "booked_idle"]))).toBe("1 of 2 free, 1 booked and idle");
  });
});
