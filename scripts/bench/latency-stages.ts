/**
 * The change → viewer bench's arithmetic (scripts/bench/latency.ts): each
 * injected change's time stamps along the way, the stages between them,
 * and their p50/p90 over a setting's changes. Pure code, tested in
 * latency-stages.test.ts.
 */

/** One change's time stamps (epoch ms, one machine's clock); null where it was not seen. */
export interface ChangeTrace {
  /** The bench replaced the value in the fake nvidia-smi's input. */
  changeAt: number;
  /** The fake printed the first `-lms` tick carrying it. */
  lineAt: number | null;
  /** The agent's read of that tick ended (the collector's snapshot was ready). */
  readEndAt: number | null;
  /** The agent handed the batch to socket.io. */
  sendAt: number | null;
  /** The server's acknowledgement reached the agent (after its ingest). */
  ackAt: number | null;
  /** The delta carrying it was drained on the server (its `t`). */
  deltaAt: number | null;
  /** A socket.io viewer's handler got the delta. */
  viewerAt: number | null;
  /** That viewer had decoded it (lib/live/live-wire.ts) and found the new value. */
  decodedAt: number | null;
  /** The browser's socket got the frame of that delta. */
  pageAt: number | null;
  /** The browser's next animation frame after the card's text showed the value. */
  paintedAt: number | null;
}

type Stamp = keyof ChangeTrace;

/** The stages reported, each from one stamp to a later one; the totals last. */
export const STAGES: readonly { name: string; from: Stamp; to: Stamp }[] = [
  { name: "change → nvidia-smi line (sample phase)", from: "changeAt", to: "lineAt" },
  { name: "line → agent read", from: "lineAt", to: "readEndAt" },
  { name: "read → send", from: "readEndAt", to: "sendAt" },
  { name: "send → ingest acknowledged", from: "sendAt", to: "ackAt" },
  { name: "send → delta drained (ingest, pacer)", from: "sendAt", to: "deltaAt" },
  { name: "delta → viewer", from: "deltaAt", to: "viewerAt" },
  { name: "viewer decode", from: "viewerAt", to: "decodedAt" },
  { name: "delta → page's socket", from: "deltaAt", to: "pageAt" },
  { name: "page's socket → painted (store, React, frame)", from: "pageAt", to: "paintedAt" },
  { name: "wire total: change → viewer decoded", from: "changeAt", to: "decodedAt" },
  { name: "painted total: change → card painted", from: "changeAt", to: "paintedAt" },
];

export interface StageSummary {
  name: string;
  count: number;
  p50: number;
  p90: number;
  max: number;
}

/** The nearest-rank percentile of `values` (sorted or not); NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/** Each stage's p50, p90 and max over the changes where both its stamps were seen. */
export function summarizeStages(traces: readonly ChangeTrace[]): StageSummary[] {
  return STAGES.map(({ name, from, to }) => {
    const values: number[] = [];
    for (const trace of traces) {
      const start = trace[from];
      const end = trace[to];
      if (start !== null && end !== null) values.push(end - start);
    }
    return { name, count: values.length, p50: percentile(values, 50), p90: percentile(values, 90), max: values.length ? Math.max(...values) : Number.NaN };
  });
}

/**
 * When the fake first printed a value: the first tick at or after the
 * change whose replaced values include it. `ticks` are the fake's tick log
 * lines, in order ("<ms> <JSON of the replaced values>").
 */
export function firstTickCarrying(ticks: readonly string[], changeAt: number, field: string, value: string): number | null {
  for (const line of ticks) {
    const space = line.indexOf(" ");
    const at = Number(line.slice(0, space));
    if (!(at >= changeAt)) continue;
    try {
      if ((JSON.parse(line.slice(space + 1)) as Record<string, string>)[field] === value) return at;
    } catch {
      // a line cut short by the end of the run
    }
  }
  return null;
}
