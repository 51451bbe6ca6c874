import { describe, expect, it } from "vitest";
import type { LiveBooking, LiveGpu, LiveHost } from "@/lib/live";
import type { GpuReconciliation, ProcessAttribution } from "@/lib/attribution";
import { displayTiles, filterHosts, gpuDisplayState, shortModelName, summarizeTiles } from "@/lib/display-state";

const NOW = Date.parse("2026-12-01T10:00:00Z");

function gpu(uuid: string, overrides: Partial<LiveGpu> = {}): LiveGpu {
  return {
    index: 0,
    uuid,
    name: "NVIDIA H100 80GB HBM3",
    pciBusId: null,
    memoryTotalMiB: 81559,
    memoryUsedMiB: 0,
    utilizationGpuPct: 0,
    utilizationMemoryPct: 0,
    temperatureC: 40,
    powerDrawW: 70,
    powerLimitW: 700,
    fanSpeedPct: null,
    smClockMHz: null,
    pstate: "P0",
    migMode: null,
    eccErrorsUncorrected: 0,
    hostId: "h1",
    hostName: "node-a",
    sampledAt: new Date(NOW).toISOString(),
    processes: [],
    ...overrides,
  };
}

function process(user: string | null) {
  return {
    gpuUuid: "GPU-a",
    pid: 1,
    name: "python",
    usedMemoryMiB: 1000,
    user,
    command: null,
    startedAt: null,
    container: null,
    slurmJobId: null,
    reservationId: null,
  };
}

function booking(uuids: string[], startsAt: string, endsAt: string, username = "alice", name = "Alice"): LiveBooking {
  return {
    reservationId: `r-${startsAt}`,
    hostId: "h1",
    hostName: "node-a",
    gpus: uuids.map((uuid, index) => ({ uuid, index })),
    holder: { id: `u-${username}`, username, name },
    startsAt,
    endsAt,
    purpose: "",
  };
}

const host = (id: string, name: string, uuids: string[], online = true): LiveHost => ({
  id,
  name,
  simulated: true,
  online,
  lastSeenAt: null,
  driverVersion: null,
  cudaVersion: null,
  gpuUuids: uuids,
});

const active = booking(["GPU-a"], "2026-12-01T09:00:00Z", "2026-12-01T14:00:00Z");

describe("gpuDisplayState", () => {
  it("is free without processes, load or booking, in use with any of the first two", () => {
    expect(gpuDisplayState(gpu("GPU-a"), true, null)).toBe("free");
    expect(gpuDisplayState(gpu("GPU-a", { processes: [process("bob")] }), true, null)).toBe("in-use");
    // Load without a visible process: a container the agent cannot see into.
    expect(gpuDisplayState(gpu("GPU-a", { utilizationGpuPct: 40 }), true, null)).toBe("in-use");
  });

  it("is booked while the holder has nothing running, in use when the holder runs, conflict when someone else does", () => {
    expect(gpuDisplayState(gpu("GPU-a"), true, active)).toBe("booked");
    expect(gpuDisplayState(gpu("GPU-a", { processes: [process("alice")] }), true, active)).toBe("in-use");
    expect(gpuDisplayState(gpu("GPU-a", { processes: [process("alice"), process("bob")] }), true, active)).toBe("conflict");
    // An owner the agent could not resolve is no evidence of a conflict.
    expect(gpuDisplayState(gpu("GPU-a", { processes: [process(null)] }), true, active)).toBe("in-use");
  });

  it("puts offline before errors, and errors before anything else", () => {
    const broken = gpu("GPU-a", { eccErrorsUncorrected: 3, processes: [process("bob")] });
    expect(gpuDisplayState(broken, true, active)).toBe("error");
    expect(gpuDisplayState(broken, false, active)).toBe("offline");
    // No ECC on GeForce boards: null is not an error.
    expect(gpuDisplayState(gpu("GPU-a", { eccErrorsUncorrected: null }), true, null)).toBe("free");
  });
});

describe("displayTiles", () => {
  it("names the holder and the end, the other users, and the next booking of a free GPU", () => {
    const later = booking(["GPU-b"], "2026-12-01T15:00:00Z", "2026-12-01T16:00:00Z", "carol", "Carol");
    const tiles = displayTiles(
      [host("h1", "node-a", ["GPU-a", "GPU-b", "GPU-missing"])],
      { "GPU-a": gpu("GPU-a", { processes: [process("alice"), process("bob"), process("bob")] }), "GPU-b": gpu("GPU-b", { index: 1 }) },
      [active, later],
      {},
      NOW,
    ).get("h1")!;
    expect(tiles.map((tile) => tile.uuid)).toEqual(["GPU-a", "GPU-b"]);
    expect(tiles[0]).toMatchObject({
      state: "conflict",
      holder: { name: "Alice", username: "alice", endsAt: "2026-12-01T14:00:00Z" },
      otherUsers: ["bob"],
      next: null,
      model: "H100 80GB",
    });
    expect(tiles[1]).toMatchObject({ state: "free", holder: null, next: { name: "Carol", startsAt: "2026-12-01T15:00:00Z" } });
  });

  it("lets a booking end by the clock, without a message", () => {
    const ended = booking(["GPU-a"], "2026-12-01T08:00:00Z", "2026-12-01T10:00:00Z");
    const tiles = displayTiles([host("h1", "node-a", ["GPU-a"])], { "GPU-a": gpu("GPU-a") }, [ended], {}, NOW).get("h1")!;
    expect(tiles[0]).toMatchObject({ state: "free", holder: null });
  });
});

describe("displayTiles with the server's reconciliation", () => {
  const alice = { id: "u-alice", username: "alice", name: "Alice" };
  const attributed = (pid: number, login: string, intruder: boolean): ProcessAttribution => ({
    pid,
    person: login === "alice" ? alice : null,
    reservationId: null,
    login,
    evidence: { kind: "login", value: login },
    intruder,
  });
  const reconciled = (overrides: Partial<GpuReconciliation>): GpuReconciliation => ({
    state: "free",
    reservationId: null,
    holder: null,
    processes: [],
    problem: null,
    ...overrides,
  });
  const tileFor = (state: GpuReconciliation, online = true, processes = [process("alice")]) =>
    displayTiles([host("h1", "node-a", ["GPU-a"], online)], { "GPU-a": gpu("GPU-a", { processes }) }, [active], { "GPU-a": state }, NOW).get("h1")![0];

  it("takes the server's state over its own guess: a process run under the holder's booking by another login is no conflict", () => {
    const tile = tileFor(
      reconciled({ state: "booked_in_use", reservationId: active.reservationId, holder: alice, processes: [{ ...attributed(1, "svc-train", false), person: alice }] }),
      true,
      [process("svc-train")],
    );
    expect(tile).toMatchObject({ state: "in-use", holder: { name: "Alice", endsAt: active.endsAt }, otherUsers: [] });
  });

  it("names only the intruders on a conflict, and the server's reason on an error", () => {
    const conflict = tileFor(
      reconciled({ state: "conflict", reservationId: active.reservationId, holder: alice, processes: [attributed(1, "alice", false), attributed(2, "bob", true)] }),
    );
    expect(conflict).toMatchObject({ state: "conflict", otherUsers: ["bob"], holder: { name: "Alice" } });
    const error = tileFor(reconciled({ state: "error", problem: "2 uncorrected ECC errors" }));
    expect(error).toMatchObject({ state: "error", problem: "2 uncorrected ECC errors" });
  });

  it("maps the server's seven states onto the six colours, and an offline host wins", () => {
    expect(tileFor(reconciled({ state: "unbooked_use", processes: [attributed(1, "bob", false)] })).state).toBe("in-use");
    expect(tileFor(reconciled({ state: "booked_idle", reservationId: active.reservationId, holder: alice })).state).toBe("booked");
    expect(tileFor(reconciled({ state: "free" }), false).state).toBe("offline");
  });
});

describe("summarizeTiles", () => {
  it("counts free GPUs per model and GPUs per state", () => {
    const tiles = displayTiles(
      [host("h1", "node-a", ["GPU-a", "GPU-b"]), host("h2", "node-b", ["GPU-c"], false)],
      {
        "GPU-a": gpu("GPU-a"),
        "GPU-b": gpu("GPU-b", { processes: [process("bob")] }),
        "GPU-c": gpu("GPU-c", { name: "NVIDIA GeForce RTX 4090" }),
      },
      [],
      {},
      NOW,
    );
    const summary = summarizeTiles([...tiles.values()].flat());
    expect(summary.total).toBe(3);
    expect(summary.counts).toMatchObject({ free: 1, "in-use": 1, offline: 1 });
    expect(summary.freeByModel).toEqual([
      { model: "H100 80GB", free: 1, total: 2 },
      { model: "RTX 4090", free: 0, total: 1 },
    ]);
  });
});

describe("shortModelName", () => {
  it.each([
    ["NVIDIA H100 80GB HBM3", "H100 80GB"],
    ["NVIDIA A100-SXM4-40GB", "A100 40GB"],
    ["NVIDIA GeForce RTX 4090", "RTX 4090"],
    ["Tesla V100-SXM2-32GB", "V100 32GB"],
    ["NVIDIA RTX A6000", "RTX A6000"],
    ["NVIDIA L40S", "L40S"],
    ["", "GPU"],
  ])("%s → %s", (name, short) => {
    expect(shortModelName(name)).toBe(short);
  });
});

describe("filterHosts", () => {
  const hosts = [host("1", "rack-a1", []), host("2", "rack-a2", []), host("3", "rack-b1", [])];
  it("keeps the named hosts in fleet order, ignoring case, and reports unknown names", () => {
    const { hosts: shown, unknown } = filterHosts(hosts, ["RACK-B1", "rack-a1", "nope"]);
    expect(shown.map((h) => h.name)).toEqual(["rack-a1", "rack-b1"]);
    expect(unknown).toEqual(["nope"]);
  });
  it("shows everything without a filter", () => {
    expect(filterHosts(hosts, null).hosts).toBe(hosts);
  });
});
