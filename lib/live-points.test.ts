import { describe, expect, it } from "vitest";
import type { FleetDelta, GpuPoint } from "@/lib/live";
import { deltaPointsOf } from "@/lib/live-points";
import { makeGpu } from "@/server/testing/factories";

function liveGpu(uuid: string, sampledAt: string, util: number) {
  return { ...makeGpu({ uuid, utilizationGpuPct: util }), hostId: "h1", hostName: "node-a", sampledAt, processes: [] };
}

describe("deltaPointsOf", () => {
  it("prefers the points the server sent, else makes one from the GPU entry, else none", () => {
    const replayed: GpuPoint[] = [
      { t: 1000, util: 1, memUsedMiB: null, powerW: null, tempC: null },
      { t: 2000, util: 2, memUsedMiB: null, powerW: null, tempC: null },
    ];
    const delta: FleetDelta = {
      serverTime: "2026-03-03T12:00:01Z",
      hosts: [],
      gpus: [liveGpu("GPU-a", "2026-03-03T12:00:00Z", 30), liveGpu("GPU-b", "1970-01-01T00:00:02Z", 2)],
      points: { "GPU-b": replayed },
      removedHostIds: [],
    };
    expect(deltaPointsOf(delta, "GPU-a").map((point) => [point.t, point.util])).toEqual([[Date.parse("2026-03-03T12:00:00Z"), 30]]);
    expect(deltaPointsOf(delta, "GPU-b")).toBe(replayed);
    expect(deltaPointsOf(delta, "GPU-c")).toEqual([]);
  });
});
