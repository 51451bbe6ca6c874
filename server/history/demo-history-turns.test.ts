import { describe, expect, it } from "vitest";
import { simulatedFleet } from "@/host/collector/simulated/simulated-source";
import { fillDemoHistory, type HistoryWriter } from "@/server/history/demo-history";
import { HOUR_MS } from "@/server/minutes/minute-row";

/** Writes nothing and never waits: the fill's own turns are all the event loop gets. */
const nowhere: HistoryWriter = { writeMinutes: async () => {}, writeHours: async () => {}, recomputeHours: async () => {} };

describe("demo history at 160 GPUs", () => {
  it("gives the event loop a turn after each host's hour, so that the server answers while it fills", async () => {
    const specs = simulatedFleet({ seed: 42, gpuCount: 160 });
    const hostIds = new Map(specs.map((spec, i) => [spec.hostName, `host-${i}`]));
    const toMs = Date.UTC(2026, 11, 1, 12, 0, 0);
    // What a request waiting on the event loop would see: callbacks scheduled while the fill runs, counted as they get their turn.
    let served = 0;
    let running = true;
    const request = () => {
      served += 1;
      if (running) setImmediate(request);
    };
    setImmediate(request);
    const turns: number[] = [];
    await fillDemoHistory({ specs, seed: 42, hostIds, fromMs: toMs - 3 * HOUR_MS, toMs, samplesPerMinute: 1, writer: nowhere, onYield: () => turns.push(served) });
    running = false;
    // 20 hosts × 3 hours: the waiting callback ran at least once per host and hour, not once the whole fill was done.
    expect(specs).toHaveLength(20);
    expect(served).toBeGreaterThanOrEqual(20 * 3);
    expect(turns.length).toBeGreaterThanOrEqual(20 * 3);
    // Between two turns of the fill, the waiting callback ran: nothing waited for a whole hour of the fleet.
    expect(served).toBeGreaterThanOrEqual(turns.length);
  });
});
