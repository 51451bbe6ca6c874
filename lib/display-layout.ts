/**
 * How the wall display fits the fleet on its screen: pure arithmetic, so that
 * it can be tested without a browser (the e2e specs check the result on
 * real screens).
 *
 * Sizes are CSS pixels. Every constant is given for a 1920×1080 screen and
 * multiplied by `scale`, so that a 3840×2160 screen shows a fleet that fits
 * the same picture twice as large; a fleet that would need more pages at
 * that size is shown at a smaller scale (down to 1: a 1080p screen's tiles),
 * so that a 4K screen holds four times the GPUs of a 1080p one.
 *
 * The picture: a summary strip on top, then hosts. A host is a block: a
 * label on its left and its GPUs as tiles in rows of `columns`. Blocks stack
 * in one or more block columns. When even the best arrangement leaves tiles
 * smaller than the readable minimum, the hosts are split (in order, whole
 * hosts where possible) into pages that the display rotates through.
 */

export interface DisplayHostInput {
  id: string;
  /** GPUs of this host shown on the display. */
  gpuCount: number;
  /** Characters of the longest line its label keeps on one line (the host name, its status); the label is made wide enough for it. */
  labelChars?: number;
}

export interface Viewport {
  width: number;
  height: number;
}

/** A host on a page, or a slice of one when it has more GPUs than a page holds. */
export interface DisplayBlock {
  hostId: string;
  /** First GPU position (in the host's order) and how many. */
  start: number;
  count: number;
  /** Rows of tiles the block takes: ceil(count / columns). */
  rows: number;
}

export interface DisplayPageLayout {
  /** Block columns, left to right; each a list of blocks, top to bottom. */
  blockColumns: DisplayBlock[][];
  /** Tiles per row inside a block. */
  columns: number;
  tileWidth: number;
  tileHeight: number;
  labelWidth: number;
}

export interface DisplayMetrics {
  scale: number;
  /**
   * The FREE NOW strip's scale: always the screen's own (a 4K wall reads it from the door), even where
   * the tiles step down to fit more GPUs on a page; the tiles get what is left below it.
   */
  stripScale: number;
  /** Space kept free around everything; larger than the burn-in shift, so a shifted page still fits. */
  margin: number;
  stripHeight: number;
  stripGap: number;
  /** Between tiles of one block. */
  tileGap: number;
  /** Between two blocks of a block column. */
  blockGap: number;
  /** Between block columns. */
  columnGap: number;
  /** Between a block's label and its tiles. */
  labelGap: number;
  minTileWidth: number;
  minTileHeight: number;
  maxTileWidth: number;
  /** Width and height of the area the blocks share. */
  areaWidth: number;
  areaHeight: number;
  /** The host label's width that keeps the longest host name on one line at the label's font (0: no wish). */
  wantedLabelWidth: number;
}

export interface DisplayPlan {
  metrics: DisplayMetrics;
  pages: DisplayPageLayout[];
}

/** Largest burn-in shift in either direction, at scale 1. */
export const BURN_IN_MAX_SHIFT = 4;

const BASE = {
  margin: 14,
  stripHeight: 60,
  stripGap: 10,
  tileGap: 6,
  blockGap: 12,
  columnGap: 18,
  labelGap: 8,
  minLabelWidth: 96,
  maxLabelWidth: 150,
  /** The label's usual share of a block column's width (within the two bounds above); it grows past that for a long host name. */
  labelShare: 0.12,
  /** The most of a block column a long host name may take; past it the name is shortened (display-host-label.tsx). */
  maxLabelShare: 0.4,
  /** Below this the tile's text would drop under 14 px (see `tileTypography`). */
  minTileWidth: 172,
  minTileHeight: 110,
  /** A handful of GPUs on a big screen should not turn into billboards. */
  maxTileWidth: 520,
  maxTileHeight: 360,
} as const;

/**
 * The host label's type at scale 1: the name in bold at this size, never
 * smaller than the readable minimum. The width per character is a generous
 * average for bold sans-serif lower case and digits, so that the layout
 * rarely leaves the label to shrink or shorten a name.
 */
export const LABEL_NAME_PX = 20;
/** The label's other lines (status, models, free count). */
const LABEL_TEXT_PX = 16;
export const LABEL_MIN_PX = 14;
export const LABEL_CHAR_EM = 0.62;
/** Padding (0.55 em each side at the label's text size) and the 2 px borders. */
const LABEL_CHROME_PX = 2 * 0.55 * LABEL_TEXT_PX + 4;

/** Taller than this share of its width a tile only gains empty space. */
const MAX_TILE_ASPECT = 0.85;
const MAX_BLOCK_COLUMNS = 4;
/** Tiles per block row never exceed this, however many GPUs a host has. */
const MAX_COLUMNS = 16;

/** The screen's scale against 1920×1080; never below 1, so that small screens page rather than shrink. */
export function displayScale({ width, height }: Viewport): number {
  return Math.max(1, Math.min(width / 1920, height / 1080));
}

/** The label width (CSS px) that shows a line of this many characters whole at the label's name size. */
export function labelWidthFor(chars: number, scale: number): number {
  if (chars <= 0) return 0;
  return Math.ceil((chars * LABEL_CHAR_EM * LABEL_NAME_PX + LABEL_CHROME_PX) * scale);
}

export function displayMetrics(viewport: Viewport, labelChars = 0, scale = displayScale(viewport)): DisplayMetrics {
  const margin = (BASE.margin + BURN_IN_MAX_SHIFT) * scale;
  const stripScale = Math.max(scale, displayScale(viewport));
  const stripHeight = BASE.stripHeight * stripScale;
  const stripGap = BASE.stripGap * stripScale;
  return {
    scale,
    stripScale,
    margin,
    stripHeight,
    stripGap,
    tileGap: BASE.tileGap * scale,
    blockGap: BASE.blockGap * scale,
    columnGap: BASE.columnGap * scale,
    labelGap: BASE.labelGap * scale,
    minTileWidth: BASE.minTileWidth * scale,
    minTileHeight: BASE.minTileHeight * scale,
    maxTileWidth: BASE.maxTileWidth * scale,
    areaWidth: Math.max(0, viewport.width - 2 * margin),
    areaHeight: Math.max(0, viewport.height - 2 * margin - stripHeight - stripGap),
    wantedLabelWidth: labelWidthFor(labelChars, scale),
  };
}

/** Font sizes inside a tile, from its size: the numbers that `minTileWidth`/`minTileHeight` are chosen for. */
export function tileTypography(tileWidth: number, tileHeight: number, scale = 1) {
  const utilization = Math.min(tileHeight * 0.34, tileWidth * 0.3, 150 * scale);
  const text = Math.min(tileHeight * 0.13, tileWidth * 0.085, 30 * scale);
  return {
    /** The big utilization number. */
    utilization: round1(utilization),
    /** GPU index, state, memory, bookedBy. */
    text: round1(text),
    padding: round1(Math.min(tileHeight * 0.055, tileWidth * 0.05)),
    gap: round1(tileHeight * 0.025),
  };
}

function round1(value: number): number {
  return Math.floor(value * 10) / 10;
}

/**
 * Splits `weights` (in order) into `parts` contiguous groups, minimizing the
 * heaviest group. Returns the index where each group starts. Small inputs
 * only (hosts on one screen), so a plain dynamic programme will do.
 */
export function partitionInOrder(weights: number[], parts: number): number[] {
  const n = weights.length;
  const k = Math.max(1, Math.min(parts, n));
  if (n === 0) return [0];
  const prefix = [0];
  for (const weight of weights) prefix.push(prefix[prefix.length - 1] + weight);
  // best[j][i]: the heaviest group when the first i weights form j groups.
  const best: number[][] = Array.from({ length: k + 1 }, () => new Array<number>(n + 1).fill(Number.POSITIVE_INFINITY));
  const cut: number[][] = Array.from({ length: k + 1 }, () => new Array<number>(n + 1).fill(0));
  best[0][0] = 0;
  for (let j = 1; j <= k; j++) {
    for (let i = j; i <= n; i++) {
      for (let s = j - 1; s < i; s++) {
        const cost = Math.max(best[j - 1][s], prefix[i] - prefix[s]);
        if (cost < best[j][i]) {
          best[j][i] = cost;
          cut[j][i] = s;
        }
      }
    }
  }
  const starts: number[] = [];
  let end = n;
  for (let j = k; j >= 1; j--) {
    const start = cut[j][end];
    starts.unshift(start);
    end = start;
  }
  return starts;
}

function splitAt<T>(items: T[], starts: number[]): T[][] {
  return starts.map((start, i) => items.slice(start, i + 1 < starts.length ? starts[i + 1] : items.length));
}

interface Candidate {
  layout: DisplayPageLayout;
  /** The utilization font size: what "readable from across the room" comes down to. */
  score: number;
}

/**
 * The best arrangement of these blocks in the area, or null when no
 * arrangement keeps every tile at the readable minimum.
 */
export function layoutPage(blocks: Omit<DisplayBlock, "rows">[], metrics: DisplayMetrics): DisplayPageLayout | null {
  if (blocks.length === 0) return { blockColumns: [], columns: 1, tileWidth: 0, tileHeight: 0, labelWidth: 0 };
  const largest = Math.max(...blocks.map((block) => block.count));
  let best: Candidate | null = null;

  for (let blockColumnCount = 1; blockColumnCount <= Math.min(MAX_BLOCK_COLUMNS, blocks.length); blockColumnCount++) {
    const columnWidth = (metrics.areaWidth - (blockColumnCount - 1) * metrics.columnGap) / blockColumnCount;
    // Wide enough for the longest host name (up to a share of the column), so that no name wraps.
    const usual = clamp(columnWidth * BASE.labelShare, BASE.minLabelWidth * metrics.scale, BASE.maxLabelWidth * metrics.scale);
    const labelWidth = Math.max(usual, Math.min(metrics.wantedLabelWidth, columnWidth * BASE.maxLabelShare));
    for (let columns = Math.min(MAX_COLUMNS, largest); columns >= 1; columns--) {
      const rowsOf = blocks.map((block) => ({ ...block, rows: Math.ceil(block.count / columns) }));
      const starts = partitionInOrder(
        rowsOf.map((block) => block.rows),
        blockColumnCount,
      );
      const blockColumns = splitAt(rowsOf, starts);
      if (blockColumns.length < blockColumnCount) continue;

      let tileHeight = Number.POSITIVE_INFINITY;
      for (const column of blockColumns) {
        const rows = column.reduce((sum, block) => sum + block.rows, 0);
        const gaps = (rows - column.length) * metrics.tileGap + (column.length - 1) * metrics.blockGap;
        tileHeight = Math.min(tileHeight, (metrics.areaHeight - gaps) / rows);
      }
      let tileWidth = (columnWidth - labelWidth - metrics.labelGap - (columns - 1) * metrics.tileGap) / columns;
      tileWidth = Math.min(tileWidth, metrics.maxTileWidth);
      tileHeight = Math.min(tileHeight, BASE.maxTileHeight * metrics.scale, tileWidth * MAX_TILE_ASPECT);
      if (tileWidth < metrics.minTileWidth || tileHeight < metrics.minTileHeight) continue;

      // Ragged rows (a host of 8 as 3 + 3 + 2) cost: a wall reads best when hosts line up.
      const cells = rowsOf.reduce((sum, block) => sum + block.rows * columns, 0);
      const filled = rowsOf.reduce((sum, block) => sum + block.count, 0) / cells;
      const score = tileTypography(tileWidth, tileHeight, metrics.scale).utilization * filled * filled;
      // Ties go to the arrangement found first: fewer block columns, then wider rows.
      if (!best || score > best.score + 0.5 * metrics.scale) {
        best = {
          score,
          layout: {
            blockColumns,
            columns,
            tileWidth: Math.floor(tileWidth),
            tileHeight: Math.floor(tileHeight),
            labelWidth: Math.floor(labelWidth),
          },
        };
      }
    }
  }
  return best?.layout ?? null;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/** The most GPUs of one host that fit on one page (at least 1, so that even a tiny screen shows something). */
function largestSlice(metrics: DisplayMetrics): number {
  let fits = 1;
  for (let count = 2; count <= 512; count++) {
    if (!layoutPage([{ hostId: "", start: 0, count }], metrics)) break;
    fits = count;
  }
  return fits;
}

/**
 * The pages for these hosts on this screen: one page when the fleet fits,
 * else as few pages as keep every tile readable, hosts kept in order and
 * whole unless a single host is larger than a page.
 */
export function planDisplay(hosts: DisplayHostInput[], viewport: Viewport): DisplayPlan {
  const screenScale = displayScale(viewport);
  const first = planAtScale(hosts, viewport, screenScale);
  if (first.pages.length <= 1 || screenScale <= 1) return first;
  // Tiles follow the screen: a large screen shows a small fleet large, and more GPUs at the
  // size a 1080p screen shows them rather than paging (160 GPUs on one 4K page). The largest
  // scale that needs no more pages than the smallest wins.
  const plans = [first];
  for (let scale = screenScale - SCALE_STEP; scale > 1; scale -= SCALE_STEP) plans.push(planAtScale(hosts, viewport, scale));
  plans.push(planAtScale(hosts, viewport, 1));
  const fewest = Math.min(...plans.map((plan) => plan.pages.length));
  return plans.find((plan) => plan.pages.length === fewest) ?? first;
}

/** How finely the scale steps down from the screen's own when the fleet does not fit at it. */
const SCALE_STEP = 0.25;

function planAtScale(hosts: DisplayHostInput[], viewport: Viewport, scale: number): DisplayPlan {
  const shown = hosts.filter((host) => host.gpuCount > 0);
  const metrics = displayMetrics(viewport, Math.max(0, ...shown.map((host) => host.labelChars ?? 0)), scale);
  if (shown.length === 0) return { metrics, pages: [] };

  const whole = shown.map((host) => ({ hostId: host.id, start: 0, count: host.gpuCount }));
  const single = layoutPage(whole, metrics);
  if (single) return { metrics, pages: [single] };

  const sliceMax = largestSlice(metrics);
  const blocks = shown.flatMap((host) => {
    const slices: Omit<DisplayBlock, "rows">[] = [];
    for (let start = 0; start < host.gpuCount; start += sliceMax) {
      slices.push({ hostId: host.id, start, count: Math.min(sliceMax, host.gpuCount - start) });
    }
    return slices;
  });

  for (let pageCount = 2; pageCount <= blocks.length; pageCount++) {
    const groups = splitAt(
      blocks,
      partitionInOrder(
        blocks.map((block) => block.count),
        pageCount,
      ),
    );
    const pages = groups.map((group) => layoutPage(group, metrics));
    if (pages.every((page): page is DisplayPageLayout => page !== null)) return { metrics, pages };
  }
  // One block per page always fits: each is at most `sliceMax` GPUs, which fit by construction.
  return {
    metrics,
    pages: blocks.map((block) => layoutPage([block], metrics) as DisplayPageLayout),
  };
}

/** Burn-in protection: the offset (in scale-1 pixels) for the n-th shift, walking a 3×3 pattern within ±BURN_IN_MAX_SHIFT. */
export function burnInOffset(step: number): { x: number; y: number } {
  const positions = [
    [0, 0],
    [1, 0],
    [1, 1],
    [0, 1],
    [-1, 1],
    [-1, 0],
    [-1, -1],
    [0, -1],
    [1, -1],
  ] as const;
  const [x, y] = positions[((step % positions.length) + positions.length) % positions.length];
  return { x: x * BURN_IN_MAX_SHIFT, y: y * BURN_IN_MAX_SHIFT };
}

/** The page to show at `nowMs` when pages rotate every `intervalMs`: all displays with the same clock agree. */
export function pageAt(nowMs: number, pageCount: number, intervalMs: number): number {
  if (pageCount <= 1 || intervalMs <= 0) return 0;
  return Math.floor(nowMs / intervalMs) % pageCount;
}
