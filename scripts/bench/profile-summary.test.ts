import { describe, expect, it } from "vitest";
import { summarizeProfile, type CpuProfile } from "./profile-summary";

const ROOT = "/repo";
const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });

/** root → ingest (repo) → zod parse (package); root → GC; root → idle. */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)", ""), children: [2, 4, 5] },
    { id: 2, callFrame: frame("ingest", "file:///repo/server/fleet/fleet-state.ts"), children: [3] },
    { id: 3, callFrame: frame("parse", "file:///repo/node_modules/zod/v4/core/schemas.js") },
    { id: 4, callFrame: frame("(garbage collector)", "") },
    { id: 5, callFrame: frame("(idle)", "") },
  ],
  startTime: 0,
  endTime: 10_000,
  // A sample's time is the gap to the next: 2, 3, 3, 2, 4, 2, 1, then the last one counts nothing.
  samples: [2, 3, 3, 4, 5, 5, 2, 2],
  timeDeltas: [0, 2000, 3000, 3000, 2000, 4000, 2000, 1000],
};

describe("summarizeProfile", () => {
  it("sums self time by area, busy time without idle", () => {
    const summary = summarizeProfile(profile, { by: "area", root: ROOT });
    expect(summary.windowMs).toBe(17);
    expect(summary.busyMs).toBe(11);
    expect(Object.fromEntries(summary.rows.map((row) => [row.name, row.selfMs]))).toEqual({ zod: 6, "server/fleet": 3, "garbage collection": 2 });
    expect(summary.rows[0]!.share).toBeCloseTo(6 / 11);
  });

  it("gives each function its total time with its callees, and keeps only the window asked for", () => {
    const byFunction = summarizeProfile(profile, { by: "function", root: ROOT });
    const ingest = byFunction.rows.find((row) => row.name.startsWith("ingest server/fleet/fleet-state.ts"));
    expect(ingest).toMatchObject({ selfMs: 3, totalMs: 9 });
    const late = summarizeProfile(profile, { by: "area", root: ROOT, fromS: 0.012 });
    expect(late.rows.map((row) => [row.name, row.selfMs])).toEqual([["server/fleet", 1]]);
  });
});
