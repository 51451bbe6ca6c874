import v8 from "node:v8";

/**
 * How far V8 lets the old generation grow past what the last full collection
 * kept, in percent: the server keeps its heap within 1.5 times its live data.
 *
 * Left to itself V8 picks the factor from how fast the program moves data
 * into the old generation, up to 4: a fleet's readings do that every second
 * (a GPU's latest reading, state and sent row live a second, long enough to
 * be promoted), so at 2,000 GPUs the old space grew to 290 MiB between full
 * collections for 72 MiB kept, most of the server's memory per GPU (issue 42,
 * docs/benchmark.md). A full collection of this heap is mostly concurrent
 * marking on V8's helper threads; its price, measured at 1,000 GPUs, is in
 * the same section.
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * Applies HEAP_GROWING_PERCENT to this process. For `gpudesk serve` only:
 * set at start, V8 reads it at each full collection, so the server needs no
 * node flags in its unit file or npm script.
 */
export function boundHeapGrowth(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
