import { describe, expect, it } from "vitest";
import { EMPTY_FLEET_FILTER, filterChoices, fleetFilterQuery, gpuFacts, isFilterActive, matchesFleetFilter, parseFleetFilter, type FleetFilter } from "@/lib/live/fleet-filter";
import { liveBookingFixture, liveGpuFixture } from "@/lib/testing/live-fixtures";

const lin = { id: "u-lin", username: "lin", name: "Lin Wei" };

function filter(overrides: Partial<FleetFilter>): FleetFilter {
  return { ...EMPTY_FLEET_FILTER, ...overrides };
}

describe("the fleet filter in the URL", () => {
  it("reads back what it wrote, other parameters kept", () => {
    const wanted = filter({ host: "node-a", model: "NVIDIA H100 80GB HBM3", state: "free", person: "lin", minFreeGiB: 40, text: "train lin" });
    const query = fleetFilterQuery(wanted, "forbidden=1");
    const params = new URLSearchParams(query);
    expect(params.get("forbidden")).toBe("1");
    expect(parseFleetFilter(params)).toEqual(wanted);
  });

  it("leaves out empty criteria and drops malformed values instead of failing", () => {
    expect(fleetFilterQuery(EMPTY_FLEET_FILTER)).toBe("");
    const parsed = parseFleetFilter(new URLSearchParams({ state: "sleeping", free: "lots", host: "x".repeat(300), q: "ok" }));
    expect(parsed).toEqual(filter({ text: "ok" }));
    expect(isFilterActive(parsed)).toBe(true);
    expect(isFilterActive(EMPTY_FLEET_FILTER)).toBe(false);
  });
});

describe("which GPUs a filter keeps", () => {
  const idle = gpuFacts(liveGpuFixture("GPU-a", [], { index: 0 }), "free", null, null);
  const busy = gpuFacts(
    liveGpuFixture("GPU-b", ["lin"], { index: 1, hostName: "node-b", memoryUsedMiB: 60_000 }),
    "booked_in_use",
    liveBookingFixture([{ uuid: "GPU-b", index: 1 }], lin),
    null,
  );

  it("matches each criterion on its own", () => {
    expect(matchesFleetFilter(idle, filter({ host: "node-a" }))).toBe(true);
    expect(matchesFleetFilter(busy, filter({ host: "node-a" }))).toBe(false);
    expect(matchesFleetFilter(busy, filter({ state: "booked_in_use" }))).toBe(true);
    expect(matchesFleetFilter(idle, filter({ state: "booked_in_use" }))).toBe(false);
    expect(matchesFleetFilter(busy, filter({ person: "lin" }))).toBe(true);
    expect(matchesFleetFilter(idle, filter({ person: "lin" }))).toBe(false);
    // 81,559 - 60,000 MiB is 21 GiB free.
    expect(matchesFleetFilter(busy, filter({ minFreeGiB: 21 }))).toBe(true);
    expect(matchesFleetFilter(busy, filter({ minFreeGiB: 22 }))).toBe(false);
    expect(matchesFleetFilter(idle, filter({ model: "NVIDIA H100 80GB HBM3" }))).toBe(true);
    expect(matchesFleetFilter(idle, filter({ model: "NVIDIA A100" }))).toBe(false);
  });

  it("searches host, GPU, person and command, every word", () => {
    expect(matchesFleetFilter(busy, filter({ text: "Wei" }))).toBe(true);
    expect(matchesFleetFilter(busy, filter({ text: "train-lin.py node-b" }))).toBe(true);
    expect(matchesFleetFilter(busy, filter({ text: "node-b:1" }))).toBe(true);
    expect(matchesFleetFilter(busy, filter({ text: "gpu 1" }))).toBe(true);
    expect(matchesFleetFilter(busy, filter({ text: "train node-a" }))).toBe(false);
    expect(matchesFleetFilter(idle, filter({ text: "lin" }))).toBe(false);
  });

  it("reads \"gpu 1\" and \"node-b:1\" as that GPU exactly, not GPU 10 or another host's GPU 1", () => {
    const tenth = gpuFacts(liveGpuFixture("GPU-k", [], { index: 10, hostName: "node-b" }), "free", null, null);
    const otherHost = gpuFacts(liveGpuFixture("GPU-m", [], { index: 1, hostName: "node-c" }), "free", null, null);
    expect(matchesFleetFilter(busy, filter({ text: "GPU 1" }))).toBe(true);
    expect(matchesFleetFilter(busy, filter({ text: "gpu1" }))).toBe(true);
    expect(matchesFleetFilter(tenth, filter({ text: "gpu 1" }))).toBe(false);
    expect(matchesFleetFilter(idle, filter({ text: "gpu 1" }))).toBe(false);
    expect(matchesFleetFilter(otherHost, filter({ text: "node-b:1" }))).toBe(false);
    expect(matchesFleetFilter(tenth, filter({ text: "node-b:1" }))).toBe(false);
    expect(matchesFleetFilter(tenth, filter({ text: "node-b:10 gpu 10" }))).toBe(true);
  });

  it("ignores the state criterion when asked, for the counts per state", () => {
    expect(matchesFleetFilter(idle, filter({ state: "conflict", host: "node-a" }), true)).toBe(true);
    expect(matchesFleetFilter(idle, filter({ state: "conflict", host: "node-b" }), true)).toBe(false);
  });

  it("offers each host, model and person once, a known name over a bare login", () => {
    const bare = gpuFacts(liveGpuFixture("GPU-c", ["lin"], { index: 2 }), "unbooked_use", null, null);
    const choices = filterChoices([bare, idle, busy]);
    expect(choices.hosts).toEqual(["node-a", "node-b"]);
    expect(choices.models).toEqual(["NVIDIA H100 80GB HBM3"]);
    expect(choices.people).toEqual([expect.objectContaining({ username: "lin", name: "Lin Wei" })]);
  });
});
