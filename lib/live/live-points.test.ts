import { describe, expect, it } from "vitest";
import type { FleetDelta, GpuPoint } from "@/lib/live/live";
import { columnsOfPoints, deltaPointsOf, pointsOfColumns } from "@/lib/live/live-points";
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

describe("sparkline columns", () => {
  it("carry times and utilization of a series with gaps and nulls, and expand to the same points", () => {
    const t0 = Date.parse("2026-03-03T12:00:00.123Z");
    const series: GpuPoint[] = [0, 1000, 2001, 5001].map((offset, i) => ({
      t: t0 + offset,
      util: i === 2 ? null : i * 10,
      memUsedMiB: 100,
      powerW: 200,
      tempC: 40,
    }));
    const columns = columnsOfPoints(series);
    expect(columns).toEqual({ t: [t0, 1000, 1001, 3000], util: [0, 10, null, 30] });
    expect(pointsOfColumns(columns)).toEqual(series.map((point) => ({ ...point, memUsedMiB: null, powerW: null, tempC: null })));
    expect(pointsOfColumns(columnsOfPoints([]))).toEqual([]);
  });

  it("take less than a fifth of the whole points' JSON for a minute of readings", () => {
    const t0 = Date.parse("2026-03-03T12:00:00Z");
    const minute: GpuPoint[] = Array.from({ length: 60 }, (_, i) => ({ t: t0 + i * 1000, util: 87, memUsedMiB: 61_234, powerW: 512.3, tempC: 61 }));
    expect(JSON.stringify(columnsOfPoints(minute)).length * 5).toBeLessThan(JSON.stringify(minute).length);
  });
});
