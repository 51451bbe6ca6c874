import type { GpuState } from "@/lib/domain/gpu-availability";
import { LABEL_CHAR_EM } from "@/lib/display-layout";

/**
 * The fleet overview (the fleet page's, and the wall's `?layout=overview`):
 * every unit as one small cell coloured by its state, grouped by host. Which
 * units it shows is decided here for both; the colours are
 * components/ui/gpu-state-colours.ts.
 */

export interface OverviewUnitInput<U> {
  unit: U;
  state: GpuState;
  /** A whole GPU in MIG mode: it is drawn as its slices, which are units of their own. */
  split: boolean;
}

export interface OverviewGroup<H, U> {
  host: H;
  units: { unit: U; state: GpuState }[];
}

/** Hosts in fleet order, each with the units it shows; a host with nothing to show (no GPUs yet) is left out. */
export function overviewGroups<H, U>(hosts: readonly H[], unitsOf: (host: H) => OverviewUnitInput<U>[]): OverviewGroup<H, U>[] {
  return hosts
    .map((host) => ({ host, units: unitsOf(host).filter((entry) => !entry.split).map(({ unit, state }) => ({ unit, state })) }))
    .filter((group) => group.units.length > 0);
}

export interface OverviewPlanInput {
  /** Units of the host. */
  count: number;
  /** Characters of the host's label (its name). */
  labelChars: number;
}

export interface OverviewPlan {
  /** A cell's side and the space between two cells, CSS px. */
  cell: number;
  cellGap: number;
  /** Cells per row inside a host group (a host with fewer units has one short row). */
  columns: number;
  /** The host label's font size; its line is `labelPx * LABEL_LINE` tall. */
  labelPx: number;
  /** Between a host's label and its cells. */
  labelGap: number;
  /** Between two host groups, across and down. */
  groupGapX: number;
  groupGapY: number;
  /** Each group's width, in input order: its cells or its label, whichever is wider, so that no name is cut. */
  groupWidths: number[];
  /** Shelves of groups, top to bottom; each a list of input indexes, left to right. */
  rows: number[][];
  /** Height of the whole picture. */
  height: number;
  /** False when even the smallest cells do not fit the area (the picture is then as small as it gets and taller than the area). */
  fits: boolean;
}

/** A label's line height against its font size. */
export const OVERVIEW_LABEL_LINE = 1.25;
/** Cells per row of a host group: a typical 8-GPU host is one row, a 16-GPU one two. */
const GROUP_COLUMNS = 8;
const MIN_CELL = 6;
/** The host label never gets smaller than this, however many units (read close up, not from the door, at that point). */
const MIN_LABEL_PX = 11;

function planAt(groups: OverviewPlanInput[], width: number, cell: number, scale: number, maxLabelPx: number) {
  const cellGap = Math.max(1, Math.round(cell * 0.14));
  const labelPx = Math.round(Math.min(maxLabelPx * scale, Math.max(MIN_LABEL_PX, cell * 0.6)));
  const labelHeight = Math.ceil(labelPx * OVERVIEW_LABEL_LINE);
  const labelGap = Math.max(2, Math.round(cellGap * 1.5));
  const groupGapX = Math.max(8, Math.round(cell * 0.5));
  const groupGapY = Math.max(6, Math.round(cell * 0.35));
  const widest = Math.max(1, ...groups.map((group) => group.count));
  const columns = Math.min(GROUP_COLUMNS, widest);
  const groupWidths = groups.map((group) => {
    const across = Math.min(columns, group.count);
    const cellsWidth = across * cell + (across - 1) * cellGap;
    return Math.max(cellsWidth, Math.ceil(group.labelChars * LABEL_CHAR_EM * labelPx) + 2);
  });
  const groupHeight = (group: OverviewPlanInput) => {
    const down = Math.ceil(group.count / columns);
    return labelHeight + labelGap + down * cell + (down - 1) * cellGap;
  };
  // Shelves: groups left to right until the next one would pass the right edge.
  const rows: number[][] = [];
  let used = Infinity;
  groups.forEach((_, index) => {
    const needed = groupWidths[index] + (used === 0 ? 0 : groupGapX);
    if (used === Infinity || used + needed > width) {
      rows.push([index]);
      used = groupWidths[index];
    } else {
      rows[rows.length - 1].push(index);
      used += needed;
    }
  });
  const height = rows.reduce((sum, row) => sum + Math.max(...row.map((index) => groupHeight(groups[index]))), 0) + Math.max(0, rows.length - 1) * groupGapY;
  const tooWide = groupWidths.some((groupWidth) => groupWidth > width);
  return { cell, cellGap, columns, labelPx, labelGap, groupGapX, groupGapY, groupWidths, rows, height, tooWide };
}

/**
 * The largest cells (up to `maxCell`, at scale 1) with which every group
 * fits the area without scrolling: tried from large to small, a pixel at a
 * time (at most a few hundred tries of arithmetic).
 */
export function planOverview(groups: OverviewPlanInput[], area: { width: number; height: number }, options: { scale?: number; maxCell?: number; maxLabelPx?: number } = {}): OverviewPlan {
  const scale = options.scale ?? 1;
  const maxCell = Math.round((options.maxCell ?? 72) * scale);
  const maxLabelPx = options.maxLabelPx ?? 28;
  let last = planAt(groups, area.width, MIN_CELL, scale, maxLabelPx);
  for (let cell = maxCell; cell >= MIN_CELL; cell--) {
    const plan = planAt(groups, area.width, cell, scale, maxLabelPx);
    last = plan;
    if (!plan.tooWide && plan.height <= area.height) return { ...withoutFlag(plan), fits: true };
  }
  return { ...withoutFlag(last), fits: false };
}

function withoutFlag({ tooWide: _tooWide, ...plan }: ReturnType<typeof planAt>): Omit<OverviewPlan, "fits"> {
  return plan;
}
