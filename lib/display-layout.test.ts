import { describe, expect, it } from "vitest";
import {
  BURN_IN_MAX_SHIFT,
  burnInOffset,
  displayMetrics,
  labelWidthFor,
  pageAt,
  partitionInOrder,
  planDisplay,
  tileTypography,
  type DisplayPlan,
  type Viewport,
} from "@/lib/display-layout";

const FULL_HD: Viewport = { width: 1920, height: 1080 };
const UHD: Viewport = { width: 3840, height: 2160 };

/** `hosts` hosts of `perHost` GPUs each, named h0, h1, … */
const fleet = (hosts: number, perHost: number) => Array.from({ length: hosts }, (_, i) => ({ id: `h${i}`, gpuCount: perHost }));

/** Every tile's box on every page, as the view lays them out (block columns side by side, centred). */
function boxes(plan: DisplayPlan, viewport: Viewport) {
  const { metrics } = plan;
  return plan.pages.map((page) => {
    const blockWidth = page.labelWidth + metrics.labelGap + page.columns * page.tileWidth + (page.columns - 1) * metrics.tileGap;
    const width = page.blockColumns.length * blockWidth + (page.blockColumns.length - 1) * metrics.columnGap;
    const heights = page.blockColumns.map((column) =>
      column.reduce((sum, block, i) => sum + block.rows * page.tileHeight + (block.rows - 1) * metrics.tileGap + (i > 0 ? metrics.blockGap : 0), 0),
    );
    const top = metrics.margin + metrics.stripHeight + metrics.stripGap;
    return { right: metrics.margin + width, bottom: top + Math.max(...heights), viewport };
  });
}

function gpusOn(plan: DisplayPlan): number {
  return plan.pages.flatMap((page) => page.blockColumns.flat()).reduce((sum, block) => sum + block.count, 0);
}

describe("planDisplay", () => {
  it.each([
    ["1080p", FULL_HD],
    ["2160p", UHD],
  ])("fits up to 64 GPUs on one %s page, every tile at least the readable minimum", (_, viewport) => {
    for (const [hosts, perHost] of [
      [3, 4],
      [4, 8],
      [8, 8],
      [16, 4],
      [32, 2],
      [1, 64],
    ]) {
      const plan = planDisplay(fleet(hosts, perHost), viewport);
      expect(plan.pages, `${hosts}×${perHost}`).toHaveLength(1);
      const page = plan.pages[0];
      expect(page.tileWidth).toBeGreaterThanOrEqual(plan.metrics.minTileWidth);
      expect(page.tileHeight).toBeGreaterThanOrEqual(plan.metrics.minTileHeight);
      expect(gpusOn(plan)).toBe(hosts * perHost);
    }
  });

  it("shows four times the GPUs of a 1080p page on a 4K page: 160 on one, where 1080p pages through them", () => {
    for (const [hosts, perHost] of [
      [20, 8],
      [40, 4],
      [10, 16],
    ]) {
      const hd = planDisplay(fleet(hosts, perHost), FULL_HD);
      const uhd = planDisplay(fleet(hosts, perHost), UHD);
      expect(hd.pages.length, `${hosts}×${perHost} at 1080p`).toBeGreaterThan(1);
      expect(uhd.pages, `${hosts}×${perHost} at 4K`).toHaveLength(1);
      expect(gpusOn(uhd)).toBe(160);
      // Never smaller than a 1080p screen's tiles.
      expect(uhd.metrics.scale).toBeGreaterThanOrEqual(1);
      expect(uhd.pages[0].tileWidth).toBeGreaterThanOrEqual(displayMetrics(FULL_HD).minTileWidth);
    }
    // A fleet that fits at the screen's own scale keeps it: a few GPUs stay large on a 4K wall.
    expect(planDisplay(fleet(8, 8), UHD).metrics.scale).toBe(2);
  });

  it("keeps the tile text at 14 px or more at 1080p and scales it with the screen", () => {
    const hd = planDisplay(fleet(8, 8), FULL_HD);
    const uhd = planDisplay(fleet(8, 8), UHD);
    const small = tileTypography(hd.pages[0].tileWidth, hd.pages[0].tileHeight, 1);
    expect(small.text).toBeGreaterThanOrEqual(14);
    expect(small.utilization).toBeGreaterThanOrEqual(36);
    const large = tileTypography(uhd.pages[0].tileWidth, uhd.pages[0].tileHeight, 2);
    expect(large.text).toBeGreaterThanOrEqual(28);
    // The smallest tile allowed still has 14 px text.
    const minimum = displayMetrics(FULL_HD);
    expect(tileTypography(minimum.minTileWidth, minimum.minTileHeight).text).toBeGreaterThanOrEqual(14);
  });

  it("pages a 96-GPU fleet at 1080p, hosts whole and in order, and shows every GPU once", () => {
    const plan = planDisplay(fleet(12, 8), FULL_HD);
    expect(plan.pages.length).toBe(2);
    const order = plan.pages.flatMap((page) => page.blockColumns.flat().map((block) => `${block.hostId}@${block.start}`));
    expect(order).toEqual(fleet(12, 8).map((host) => `${host.id}@0`));
    expect(gpusOn(plan)).toBe(96);
  });

  it("keeps every tile inside the screen, with room for the burn-in shift", () => {
    for (const viewport of [FULL_HD, UHD, { width: 1366, height: 768 }, { width: 1080, height: 1920 }]) {
      for (const [hosts, perHost] of [
        [4, 8],
        [12, 8],
        [3, 5],
        [40, 2],
      ]) {
        const plan = planDisplay(fleet(hosts, perHost), viewport);
        const scale = plan.metrics.scale;
        for (const box of boxes(plan, viewport)) {
          expect(box.right + BURN_IN_MAX_SHIFT * scale, `${viewport.width}x${viewport.height} ${hosts}×${perHost}`).toBeLessThanOrEqual(viewport.width);
          expect(box.bottom + BURN_IN_MAX_SHIFT * scale).toBeLessThanOrEqual(viewport.height);
        }
        expect(gpusOn(plan)).toBe(hosts * perHost);
      }
    }
  });

  it("splits a host larger than a page into slices on consecutive pages", () => {
    const plan = planDisplay([{ id: "big", gpuCount: 200 }, { id: "small", gpuCount: 2 }], FULL_HD);
    expect(plan.pages.length).toBeGreaterThan(1);
    const blocks = plan.pages.flatMap((page) => page.blockColumns.flat());
    const big = blocks.filter((block) => block.hostId === "big");
    expect(big.map((block) => block.start)).toEqual([...big.map((block) => block.start)].sort((a, b) => a - b));
    expect(big.reduce((sum, block) => sum + block.count, 0)).toBe(200);
    expect(blocks.at(-1)?.hostId).toBe("small");
  });

  it("lines hosts up rather than leaving ragged rows when the tiles are as readable", () => {
    const page = planDisplay(fleet(4, 8), FULL_HD).pages[0];
    expect(8 % page.columns).toBe(0);
  });

  it.each([
    ["1080p", FULL_HD],
    ["2160p", UHD],
  ])("makes the host label wide enough for the longest name at %s, up to 40 %% of a block column", (_, viewport) => {
    const scale = viewport.width / 1920;
    const short = planDisplay(fleet(3, 4).map((host) => ({ ...host, labelChars: 10 })), viewport).pages[0];
    expect(short.labelWidth).toBeGreaterThanOrEqual(labelWidthFor(10, scale) - 1);
    const long = planDisplay([...fleet(2, 4), { id: "long", gpuCount: 4, labelChars: 28 }], viewport).pages[0];
    expect(long.labelWidth).toBeGreaterThanOrEqual(labelWidthFor(28, scale) - 1);
    expect(long.labelWidth).toBeGreaterThan(short.labelWidth);
    // Every tile still at the readable minimum, and the blocks inside the screen.
    const metrics = displayMetrics(viewport);
    expect(long.tileWidth).toBeGreaterThanOrEqual(metrics.minTileWidth - 1);
    const absurd = planDisplay([{ id: "absurd", gpuCount: 8, labelChars: 400 }], viewport);
    const page = absurd.pages[0];
    const columnWidth = (absurd.metrics.areaWidth - (page.blockColumns.length - 1) * absurd.metrics.columnGap) / page.blockColumns.length;
    expect(page.labelWidth).toBeLessThanOrEqual(Math.ceil(columnWidth * 0.4));
  });

  it("shows nothing for no hosts and skips hosts without GPUs", () => {
    expect(planDisplay([], FULL_HD).pages).toEqual([]);
    const plan = planDisplay([{ id: "empty", gpuCount: 0 }, { id: "a", gpuCount: 2 }], FULL_HD);
    expect(plan.pages[0].blockColumns.flat().map((block) => block.hostId)).toEqual(["a"]);
  });
});

describe("partitionInOrder", () => {
  it("balances contiguous groups", () => {
    expect(partitionInOrder([1, 1, 1, 1], 2)).toEqual([0, 2]);
    expect(partitionInOrder([4, 1, 1, 1, 1], 2)).toEqual([0, 1]);
    expect(partitionInOrder([2, 2, 2], 5)).toEqual([0, 1, 2]);
    expect(partitionInOrder([], 3)).toEqual([0]);
  });
});

describe("burnInOffset and pageAt", () => {
  it("walks a small pattern around the origin and comes back", () => {
    const offsets = Array.from({ length: 9 }, (_, step) => burnInOffset(step));
    expect(new Set(offsets.map((o) => `${o.x},${o.y}`)).size).toBe(9);
    for (const { x, y } of offsets) {
      expect(Math.abs(x)).toBeLessThanOrEqual(BURN_IN_MAX_SHIFT);
      expect(Math.abs(y)).toBeLessThanOrEqual(BURN_IN_MAX_SHIFT);
    }
    expect(burnInOffset(9)).toEqual(burnInOffset(0));
  });

  it("rotates pages by the clock", () => {
    expect(pageAt(0, 1, 10_000)).toBe(0);
    expect(pageAt(9_999, 3, 10_000)).toBe(0);
    expect(pageAt(10_000, 3, 10_000)).toBe(1);
    expect(pageAt(30_000, 3, 10_000)).toBe(0);
  });
});
