import { describe, expect, it } from "vitest";
import { staticDirectory } from "@/server/attribution/user-directory";
import { Reconciler } from "@/server/attribution/reconcile-fleet";
import { FleetState } from "@/server/fleet/fleet-state";
import { makeGpu, makeProcess, makeSnapshot } from "@/server/testing/factories";

const alice = { id: "u-alice", username: "alice", name: "Alice", unixLogin: "alice" };

describe("Reconciler", () => {
  it("tells only what changed, and keeps holding a GPU's reconciliation while it stays the same", () => {
    let clock = Date.parse("2026-12-01T10:00:00Z");
    const fleet = new FleetState({ offlineAfterMs: 5000, simulated: true, now: () => clock });
    const idle = makeGpu({ index: 0 });
    const busy = makeGpu({ index: 1 });
    fleet.connectHost("h1", "node-a", true);
    const reconciler = new Reconciler(() => [], staticDirectory([alice]));
    const read = (processes: ReturnType<typeof makeProcess>[]) => {
      fleet.ingest("h1", makeSnapshot([idle, busy], clock, { processes }));
      return reconciler.run(fleet.current(), clock);
    };

    const first = read([]);
    expect(Object.keys(first).sort()).toEqual([idle.uuid, busy.uuid].sort());
    const held = reconciler.current()[idle.uuid];
    expect(held).toMatchObject({ state: "free" });

    clock += 1000;
    expect(read([makeProcess(busy, { pid: 7, user: "alice" })])).toEqual({ [busy.uuid]: expect.objectContaining({ state: "unbooked_use" }) });
    // The same object as a tick before: a copy made every second is what filled the old generation (issue 42).
    expect(reconciler.current()[idle.uuid]).toBe(held);
    const running = reconciler.current()[busy.uuid];
    expect(running.processes[0]).toMatchObject({ pid: 7, runner: { id: "u-alice" } });

    clock += 1000;
    expect(read([makeProcess(busy, { pid: 7, user: "alice" })])).toEqual({});
    expect(reconciler.current()[busy.uuid]).toBe(running);

    clock += 1000;
    expect(read([])).toEqual({ [busy.uuid]: expect.objectContaining({ state: "free", processes: [] }) });
    expect(reconciler.current()[busy.uuid]).not.toBe(running);
  });
});
