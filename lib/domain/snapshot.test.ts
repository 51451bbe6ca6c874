import { describe, expect, it } from "vitest";
import * as z from "zod";
import { compileFastCheck, UNSURE } from "@/lib/domain/fast-check";
import { parseSnapshot, snapshotSchema, type Snapshot } from "@/lib/domain/snapshot";
import { readOwnFixture } from "@/host/collector/nvidia-smi/test-fixtures";
import { simulatedFleet, simulatedSnapshotAt } from "@/host/collector/simulated/simulated-source";
import { makeGpu, makeProcess, makeSnapshot } from "@/server/testing/factories";

/**
 * parseSnapshot is the agents' readings' check on the server (every reading,
 * every second): a fast path in front of snapshotSchema. It must answer
 * exactly what the schema answers, for good readings and for every kind of
 * bad one (the refusals issue 14's security fixes rely on).
 */

const realH200 = JSON.parse(readOwnFixture("h200-bundle-check", "bundle-agent-once__node20.json.txt")) as Snapshot;
const simulated = simulatedFleet({ seed: 3, gpuCount: 64 }).map((spec, i) => simulatedSnapshotAt(spec, 3, Date.UTC(2026, 10, 30, 12, i)));
const gpu = makeGpu({ index: 0 });
const crafted = makeSnapshot([gpu, makeGpu({ index: 1 })], Date.UTC(2026, 10, 30, 12), {
  processes: [makeProcess(gpu, { reservationId: "res_1.proof", reservationProven: true })],
});

const copy = <T>(value: T): T => structuredClone(value);

function sameAnswer(raw: unknown): void {
  const expected = snapshotSchema.safeParse(raw);
  const actual = parseSnapshot(raw);
  expect(actual.success).toBe(expected.success);
  if (expected.success) expect(actual.data).toStrictEqual(expected.data);
  else expect(actual.error!.issues).toEqual(expected.error.issues);
}

/** Values to put in place of a field: wrong types, edges of every bound the schema has, and just past them. */
const CANDIDATES: unknown[] = [
  undefined,
  null,
  true,
  "7",
  "",
  "x".repeat(8),
  "x".repeat(9),
  "x".repeat(129),
  "x".repeat(254),
  "x".repeat(4097),
  "2026-11-30T12:00:00Z",
  "2026-11-30T12:00:00.123456Z",
  "2026-11-30T12:00:00+02:00",
  "2026-13-30T12:00:00Z",
  "2026-02-30T12:00:00.000Z",
  0,
  -0,
  -1,
  -50,
  -50.5,
  0.5,
  1,
  100,
  100.5,
  150,
  151,
  200,
  201,
  255,
  256,
  1023,
  1024,
  10_000,
  10_001,
  16 * 1024 * 1024,
  16 * 1024 * 1024 + 1,
  2 ** 32,
  2 ** 32 + 1,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  1e308,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  [],
  {},
];

describe("parseSnapshot answers what snapshotSchema answers", () => {
  it("takes real, simulated and constructed readings, with the schema's output (unknown keys dropped)", () => {
    for (const reading of [realH200, ...simulated, crafted]) sameAnswer(copy(reading));
    const extra = { ...copy(crafted), extra: 1, gpus: crafted.gpus.map((g) => ({ ...g, clockOffset: 5 })) };
    sameAnswer(extra);
    expect(parseSnapshot(extra).data).not.toHaveProperty("extra");
    expect(parseSnapshot(extra).data?.gpus[0]).not.toHaveProperty("clockOffset");
  });

  it("answers alike for every field replaced by every candidate value, and for the field left out", () => {
    const cases: unknown[] = [];
    const base = copy(crafted);
    for (const key of Object.keys(base.host)) for (const value of CANDIDATES) cases.push({ ...copy(base), host: { ...base.host, [key]: value } });
    const eachField = (list: "gpus" | "processes", keys: string[]) => {
      for (const key of keys) {
        for (const value of CANDIDATES) {
          const reading = copy(base);
          (reading[list][0] as Record<string, unknown>)[key] = value;
          cases.push(reading);
        }
        const without = copy(base);
        delete (without[list][0] as Record<string, unknown>)[key];
        cases.push(without);
      }
    };
    eachField("gpus", Object.keys(base.gpus[0]!));
    eachField("processes", [...Object.keys(base.processes[0]!), "reservationProven"]);
    for (const key of Object.keys(base)) for (const value of CANDIDATES) cases.push({ ...copy(base), [key]: value });
    for (const value of CANDIDATES) cases.push(value);
    for (const raw of cases) sameAnswer(raw);
    expect(cases.length).toBeGreaterThan(1500);
  });

  it("refuses what the refinements refuse: duplicate indices or UUIDs, memory used above the total", () => {
    const [a, b] = crafted.gpus;
    const cases: unknown[] = [
      { ...copy(crafted), gpus: [a, { ...b, index: a!.index }] },
      { ...copy(crafted), gpus: [a, { ...b, uuid: a!.uuid }] },
      { ...copy(crafted), gpus: [{ ...a, memoryTotalMiB: 1000, memoryUsedMiB: 1012 }] },
      { ...copy(crafted), gpus: [{ ...a, memoryTotalMiB: 1000, memoryUsedMiB: 1011 }] },
    ];
    for (const raw of cases) sameAnswer(raw);
    expect(parseSnapshot(cases[0]).error?.issues[0]?.message).toBe(`GPU index ${a!.index} appears twice`);
    expect(parseSnapshot(cases[2]).success).toBe(false);
    expect(parseSnapshot(cases[3]).success).toBe(true);
  });

  it("answers alike at the bounds of the arrays: 256 GPUs, 4096 processes, and one more", () => {
    const gpus = (count: number) => Array.from({ length: count }, (_, index) => makeGpu({ index: index % 1024 }));
    const many = gpus(256);
    sameAnswer(makeSnapshot(many, Date.UTC(2026, 10, 30)));
    sameAnswer(makeSnapshot(gpus(257), Date.UTC(2026, 10, 30)));
    const processes = (count: number) => Array.from({ length: count }, (_, pid) => makeProcess(many[0]!, { pid }));
    sameAnswer(makeSnapshot([many[0]!], Date.UTC(2026, 10, 30), { processes: processes(4096) }));
    sameAnswer(makeSnapshot([many[0]!], Date.UTC(2026, 10, 30), { processes: processes(4097) }));
  });
});

describe("compileFastCheck", () => {
  it("is never surer than the schema: unsure of whatever the schema refuses", () => {
    const schema = z.object({ n: z.number().gt(0).lt(10), s: z.string().min(2).max(3), b: z.boolean().optional() });
    const fast = compileFastCheck(schema);
    for (const n of [0, 0.1, 9.9, 10, -1]) for (const s of ["a", "ab", "abcd"]) {
      const answer = fast({ n, s });
      expect(answer === UNSURE).toBe(!schema.safeParse({ n, s }).success);
    }
  });

  it("refuses to compile a schema part it does not know, rather than guess", () => {
    expect(() => compileFastCheck(z.object({ when: z.date() }))).toThrow(/when: type date is not supported/);
    expect(() => compileFastCheck(z.object({ n: z.number().multipleOf(2) }))).toThrow(/not supported/);
  });
});
