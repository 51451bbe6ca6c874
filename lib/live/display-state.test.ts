import { describe, expect, it } from "vitest";
import type { GpuReconciliation } from "@/lib/domain/attribution";
import { displayGpusFromFleet } from "@/lib/live/display-from-fleet";
import { displayTiles, filterHosts, hiddenModelsText, hostInventoryText, shortModelName, summarizeTiles, type DisplayFeedGpu, type DisplayFeedHost } from "@/lib/live/display-state";
import type { LiveBooking, LiveGpu } from "@/lib/live/live";
import { liveGpuFixture } from "@/lib/testing/live-fixtures";
import { slurmWallWords } from "@/lib/domain/slurm";

const NOW = Date.parse("2026-12-01T10:00:00Z");

function feedGpu(uuid: string, overrides: Partial<DisplayFeedGpu> = {}): DisplayFeedGpu {
  return {
    uuid,
    hostId: "h1",
    index: 0,
    model: "NVIDIA H100 80GB HBM3",
    state: "free",
    utilizationPct: 0,
    memoryUsedMiB: 0,
    memoryTotalMiB: 81559,
    temperatureC: 40,
    bookedByName: null,
    bookedUntil: null,
    ...overrides,
  };
}

const host = (id: string, name: string, uuids: string[], online = true): DisplayFeedHost => ({ id, name, online, lastSeenAt: null, gpuUuids: uuids });

describe("displayTiles (display-scope fields only)", () => {
  it("keeps host then index order, skips unknown GPUs, and names the booker until the end", () => {
    const tiles = displayTiles([host("h1", "node-a", ["GPU-a", "GPU-b", "GPU-missing"])], {
      "GPU-a": feedGpu("GPU-a", { state: "booked_in_use", bookedByName: "Alice", bookedUntil: "2026-12-01T14:00:00Z" }),
      "GPU-b": feedGpu("GPU-b", { index: 1, state: "unbooked_use" }),
    }).get("h1")!;
    expect(tiles.map((tile) => tile.uuid)).toEqual(["GPU-a", "GPU-b"]);
    expect(tiles[0]).toMatchObject({ state: "booked_in_use", bookedBy: { name: "Alice", until: "2026-12-01T14:00:00Z" }, model: "H100 80GB" });
    // In use without a booking is its own state on the wall, not "in use" like the booker's.
    expect(tiles[1]).toMatchObject({ state: "unbooked_use", bookedBy: null });
  });

  it("shows every GPU of a silent host offline, whatever it said last", () => {
    const tiles = displayTiles([host("h1", "node-a", ["GPU-a"], false)], { "GPU-a": feedGpu("GPU-a", { state: "free" }) }).get("h1")!;
    expect(tiles[0].state).toBe("offline");
  });
});

describe("summarizeTiles", () => {
  it("counts free GPUs with the one rule, per model and per state", () => {
    const tiles = displayTiles([host("h1", "node-a", ["GPU-a", "GPU-b", "GPU-c"]), host("h2", "node-b", ["GPU-d"], false)], {
      "GPU-a": feedGpu("GPU-a"),
      "GPU-b": feedGpu("GPU-b", { state: "unbooked_use" }),
      "GPU-c": feedGpu("GPU-c", { state: "booked_idle", bookedByName: "Alice", bookedUntil: "2026-12-01T14:00:00Z" }),
      "GPU-d": feedGpu("GPU-d", { model: "NVIDIA GeForce RTX 4090", hostId: "h2" }),
    });
    const summary = summarizeTiles([...tiles.values()].flat());
    expect(summary.counts.total).toBe(4);
    expect(summary.counts.free).toBe(1);
    expect(summary.counts.byState).toMatchObject({ free: 1, unbooked_use: 1, booked_idle: 1, offline: 1 });
    expect(summary.freeByModel).toEqual([
      { model: "H100 80GB", free: 1, total: 3 },
      { model: "RTX 4090", free: 0, total: 1 },
    ]);
  });
});

describe("hiddenModelsText", () => {
  it("names how many models and how many of their GPUs are free, so the strip never drops one silently", () => {
    expect(hiddenModelsText([{ model: "H200", free: 3, total: 8 }, { model: "RTX 4090", free: 0, total: 4 }])).toBe("+2 more models (3 of 12 free)");
    expect(hiddenModelsText([{ model: "A100", free: 56, total: 56 }])).toBe("+1 more model (56 of 56 free)");
  });
});

describe("displayGpusFromFleet", () => {
  const liveGpu = (uuid: string, overrides: Partial<LiveGpu> = {}) => liveGpuFixture(uuid, [], { sampledAt: new Date(NOW).toISOString(), ...overrides });
  const processOf = (user: string) => ({
    gpuUuid: "GPU-a",
    pid: 7,
    name: "python",
    usedMemoryMiB: 1000,
    user,
    command: null,
    startedAt: null,
    container: null,
    slurmJobId: null,
    reservationId: null,
  });
  const booking = (uuid: string, startsAt: string, endsAt: string): LiveBooking => ({
    reservationId: `r-${uuid}`,
    hostId: "h1",
    hostName: "node-a",
    gpus: [{ uuid, index: 0 }],
    bookedBy: { id: "u-alice", username: "alice", name: "Alice Liddell" },
    startsAt,
    endsAt,
    purpose: "secret purpose",
  });
  const online = new Set(["h1"]);

  it("takes the server's state and gives the booker's display name and end, nothing more", () => {
    const states: Record<string, GpuReconciliation> = {
      "GPU-a": { state: "booked_in_use", reservationId: "r-GPU-a", bookedBy: { id: "u-alice", username: "alice", name: "Alice Liddell" }, processes: [], problem: null },
    };
    const out = displayGpusFromFleet(
      { "GPU-a": liveGpu("GPU-a", { processes: [processOf("svc")] }) },
      online,
      [booking("GPU-a", "2026-12-01T09:00:00Z", "2026-12-01T14:00:00Z")],
      states,
      NOW,
    );
    expect(out["GPU-a"]).toEqual({
      uuid: "GPU-a",
      hostId: "h1",
      index: 0,
      model: "NVIDIA H100 80GB HBM3",
      state: "booked_in_use",
      utilizationPct: 0,
      memoryUsedMiB: 0,
      memoryTotalMiB: 81559,
      temperatureC: 40,
      bookedByName: "Alice Liddell",
      bookedUntil: "2026-12-01T14:00:00Z",
    });
  });

  it("applies the one rule itself until the server's states arrive: a process without a booking is not free", () => {
    const out = displayGpusFromFleet(
      { "GPU-a": liveGpu("GPU-a", { processes: [processOf("bob")] }), "GPU-b": liveGpu("GPU-b", { index: 1 }) },
      online,
      [],
      {},
      NOW,
    );
    expect(out["GPU-a"].state).toBe("unbooked_use");
    expect(out["GPU-b"].state).toBe("free");
  });

  it("marks a GPU in use with no process visible, for the tile to say so, and keeps it through displayTiles", () => {
    const held = liveGpu("GPU-a", { memoryUsedMiB: 40_960, utilizationGpuPct: 87 });
    const before = displayGpusFromFleet({ "GPU-a": held, "GPU-b": liveGpu("GPU-b", { index: 1 }) }, online, [], {}, NOW);
    expect(before["GPU-a"]).toMatchObject({ state: "unbooked_use", unseen: true });
    expect(before["GPU-b"]).not.toHaveProperty("unseen");
    const states: Record<string, GpuReconciliation> = {
      "GPU-a": { state: "unbooked_use", reservationId: null, bookedBy: null, processes: [], problem: null, unseenUse: { memoryMiB: 40_960 } },
    };
    const reconciled = displayGpusFromFleet({ "GPU-a": held }, online, [], states, NOW);
    expect(reconciled["GPU-a"].unseen).toBe(true);
    const host = { id: "h1", name: "node-1", online: true, lastSeenAt: null, gpuUuids: ["GPU-a"] };
    expect(displayTiles([host], reconciled).get("h1")?.[0]).toMatchObject({ state: "unbooked_use", unseen: true });
    // A silent host's GPUs are offline, whatever they held last.
    expect(displayTiles([{ ...host, online: false }], reconciled).get("h1")?.[0]).not.toHaveProperty("unseen");
  });

  it("never shows a login: a booker or runner without a display name of their own is no name on the wall", () => {
    const nameless = { ...booking("GPU-a", "2026-12-01T09:00:00Z", "2026-12-01T14:00:00Z"), bookedBy: { id: "u-carol", username: "carol", name: "carol" } };
    const twins = [
      { ...booking("GPU-a", "2026-12-01T09:00:00Z", "2026-12-01T14:00:00Z"), bookedBy: { id: "u-a1", username: "alice", name: "Alice" } },
      { ...booking("GPU-b", "2026-12-01T09:00:00Z", "2026-12-01T14:00:00Z"), bookedBy: { id: "u-a2", username: "alice2", name: "Alice" } },
    ];
    expect(displayGpusFromFleet({ "GPU-a": liveGpu("GPU-a") }, online, [nameless], {}, NOW)["GPU-a"].bookedByName).toBe("a lab member");
    const both = displayGpusFromFleet({ "GPU-a": liveGpu("GPU-a"), "GPU-b": liveGpu("GPU-b", { index: 1 }) }, online, twins, {}, NOW);
    expect([both["GPU-a"].bookedByName, both["GPU-b"].bookedByName]).toEqual(["Alice", "Alice"]);
    const runner = (person: { id: string; username: string; name: string }, login: string): Record<string, GpuReconciliation> => ({
      "GPU-a": {
        state: "unbooked_use",
        reservationId: null,
        bookedBy: null,
        problem: null,
        processes: [{ pid: 7, runner: person, reservationId: null, login, evidence: { kind: "login", value: login }, intruder: true }],
      },
    });
    const view = { namesUnbookedRunner: true };
    const gpu = { "GPU-a": liveGpu("GPU-a", { processes: [processOf("ckrause")] }) };
    expect(displayGpusFromFleet(gpu, online, [], runner({ id: "u-c", username: "carol", name: "ckrause" }, "ckrause"), NOW, view)["GPU-a"]).not.toHaveProperty("runnerName");
    expect(displayGpusFromFleet(gpu, online, [], runner({ id: "u-c", username: "carol", name: "Carol" }, "ckrause"), NOW, view)["GPU-a"].runnerName).toBe("Carol");
  });

  it("lets a booking end by the clock, without a message", () => {
    const out = displayGpusFromFleet({ "GPU-a": liveGpu("GPU-a") }, online, [booking("GPU-a", "2026-12-01T08:00:00Z", "2026-12-01T10:00:00Z")], {}, NOW);
    expect(out["GPU-a"]).toMatchObject({ state: "free", bookedByName: null, bookedUntil: null });
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

describe("hostInventoryText (the wall's host label)", () => {
  const whole = (index: number, model: string) => ({ index, model });
  const slice = (index: number, device: number, profile: string) => ({ index, model: `H100 ${profile}`, slice: { ref: `${index}:${device}`, profile } });

  it("counts whole GPUs per model", () => {
    expect(hostInventoryText([whole(0, "H100 80GB"), whole(1, "H100 80GB")])).toBe("2 × H100 80GB");
    expect(hostInventoryText([whole(0, "A100 40GB"), whole(1, "RTX 4090")])).toBe("1 × A100 40GB, 1 × RTX 4090");
  });

  it("names a GPU split into MIG slices once, with its slice count, beside the host's whole GPUs", () => {
    const split = [slice(0, 0, "3g.40gb"), slice(0, 1, "2g.20gb"), slice(0, 2, "1g.10gb"), slice(0, 3, "1g.10gb")];
    expect(hostInventoryText(split)).toBe("1 × H100 in 4 MIG slices");
    expect(hostInventoryText([...split, slice(1, 0, "7g.80gb"), whole(2, "H100 80GB")])).toBe("1 × H100 80GB, 2 × H100 in 5 MIG slices");
  });
});

describe("a GPU Slurm holds, on the wall", () => {
  it("carries the job or reservation and its end but never the job's user, and the tile says Slurm rather than unbooked", () => {
    const reading = liveGpuFixture("GPU-s", [], { sampledAt: new Date(NOW).toISOString(), utilizationGpuPct: 0, memoryUsedMiB: 0 });
    const states: Record<string, GpuReconciliation> = {
      "GPU-s": { state: "unbooked_use", reservationId: null, bookedBy: null, processes: [], problem: null, slurm: { kind: "job", id: "42", user: "bob", until: "2026-12-01T21:00:00Z" } },
    };
    const out = displayGpusFromFleet({ "GPU-s": reading }, new Set([reading.hostId]), [], states, NOW);
    expect(out["GPU-s"]).toMatchObject({ state: "unbooked_use", slurm: { kind: "job", id: "42", until: "2026-12-01T21:00:00Z" } });
    expect(JSON.stringify(out)).not.toContain("bob");
    const [tile] = displayTiles([{ id: reading.hostId, name: "sim-2", online: true, gpuUuids: ["GPU-s"] } as DisplayFeedHost], out).get(reading.hostId)!;
    expect(tile!.slurm).toEqual({ kind: "job", id: "42", until: "2026-12-01T21:00:00Z" });
    expect(slurmWallWords({ kind: "reservation", id: "maint", until: "2026-12-01T21:00:00Z" }, () => "21:00")).toEqual({ state: "Slurm", who: "resv maint", when: "until 21:00" });
    expect(slurmWallWords({ kind: "job", id: "23", until: null, noTimeLimit: true }, () => "never")).toEqual({ state: "Slurm", who: "job 23", when: "no time limit" });
  });
});
