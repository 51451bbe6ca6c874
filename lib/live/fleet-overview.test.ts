import { describe, expect, it } from "vitest";
import { overviewGroups, planOverview, OVERVIEW_LABEL_LINE } from "@/lib/live/fleet-overview";

const hosts = (count: number, gpus: number, name = (i: number) => `gpu-node-${String(i).padStart(3, "0")}`) =>
  Array.from({ length: count }, (_, i) => ({ count: gpus, labelChars: name(i).length }));

/** The 1080p wall's area below its strip and legend (display-overview.tsx). */
const WALL_1080 = { width: 1884, height: 940 };
const WALL_4K = { width: 3768, height: 1880 };

describe("overviewGroups", () => {
  it("shows a split GPU by its slices and leaves out a host with nothing to show", () => {
    const groups = overviewGroups(["a", "b"], (host) =>
      host === "a"
        ? [
            { unit: "a0", state: "partitioned", split: true },
            { unit: "a0:1", state: "free", split: false },
            { unit: "a1", state: "booked_idle", split: false },
          ]
        : [],
    );
    expect(groups).toEqual([{ host: "a", units: [{ unit: "a0:1", state: "free" }, { unit: "a1", state: "booked_idle" }] }]);
  });
});

describe("planOverview", () => {
  function check(plan: ReturnType<typeof planOverview>, groups: ReturnType<typeof hosts>, area: { width: number; height: number }) {
    expect(plan.fits).toBe(true);
    expect(plan.height).toBeLessThanOrEqual(area.height);
    expect(plan.rows.flat()).toEqual(groups.map((_, i) => i));
    for (const row of plan.rows) {
      const width = row.reduce((sum, index) => sum + plan.groupWidths[index], 0) + (row.length - 1) * plan.groupGapX;
      expect(width).toBeLessThanOrEqual(area.width);
    }
  }

  it("fits 160 GPUs on a 1080p wall in cells large enough to read across a room", () => {
    const groups = hosts(20, 8);
    const plan = planOverview(groups, WALL_1080);
    check(plan, groups, WALL_1080);
    expect(plan.cell).toBeGreaterThanOrEqual(40);
    expect(plan.labelPx).toBeGreaterThanOrEqual(20);
  });

  it("fits 1,000 GPUs on a 1080p and a 4K wall without scrolling, labels wide enough for their names", () => {
    const groups = [...hosts(120, 8), ...hosts(5, 8, (i) => `a-very-long-host-name-in-rack-${i}`)];
    for (const [area, scale] of [[WALL_1080, 1], [WALL_4K, 2]] as const) {
      const plan = planOverview(groups, area, { scale });
      check(plan, groups, area);
      expect(plan.cell).toBeGreaterThanOrEqual(12 * scale);
      groups.forEach((group, i) => expect(plan.groupWidths[i]).toBeGreaterThanOrEqual(group.labelChars * plan.labelPx * 0.6));
      expect(plan.labelPx * OVERVIEW_LABEL_LINE).toBeGreaterThan(plan.labelPx);
    }
  });

  it("gives a handful of GPUs large cells, never billboards", () => {
    const plan = planOverview(hosts(2, 4), WALL_1080);
    expect(plan.cell).toBe(72);
  });

  it("says when even the smallest cells do not fit", () => {
    const plan = planOverview(hosts(2000, 8), { width: 400, height: 300 });
    expect(plan.fits).toBe(false);
    expect(plan.cell).toBe(6);
  });
});
