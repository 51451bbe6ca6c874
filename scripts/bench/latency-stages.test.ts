import { describe, expect, it } from "vitest";
import { firstTickCarrying, percentile, summarizeStages, type ChangeTrace } from "./latency-stages";

const seen = (changeAt: number, step: number): ChangeTrace => ({
  changeAt,
  lineAt: changeAt + 400,
  readEndAt: changeAt + 420,
  sendAt: changeAt + 421,
  ackAt: changeAt + 425,
  deltaAt: changeAt + 424 + step,
  viewerAt: changeAt + 426 + step,
  decodedAt: changeAt + 427 + step,
  pageAt: null,
  paintedAt: null,
});

describe("percentile", () => {
  it("takes the nearest rank, whatever the order", () => {
    expect(percentile([30, 10, 20, 40], 50)).toBe(20);
    expect(percentile([30, 10, 20, 40], 90)).toBe(40);
    expect(percentile([7], 90)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe("summarizeStages", () => {
  it("measures each stage between its stamps and leaves out the changes where one was not seen", () => {
    const stages = summarizeStages([seen(1000, 0), seen(5000, 10), seen(9000, 100)]);
    const byName = new Map(stages.map((stage) => [stage.name, stage]));
    expect(byName.get("change → nvidia-smi line (sample phase)")).toMatchObject({ count: 3, p50: 400, p90: 400 });
    expect(byName.get("send → delta drained (ingest, pacer)")).toMatchObject({ count: 3, p50: 13, p90: 103, max: 103 });
    expect(byName.get("wire total: change → viewer decoded")).toMatchObject({ count: 3, p50: 437, p90: 527 });
    expect(byName.get("painted total: change → card painted")).toMatchObject({ count: 0 });
    expect(byName.get("painted total: change → card painted")!.p50).toBeNaN();
  });
});

describe("firstTickCarrying", () => {
  const ticks = ['1000 {"utilization.gpu":"5 %"}', '2000 {"utilization.gpu":"5 %"}', '3000 {"utilization.gpu":"13 %"}', '4000 {"utilization.gpu":"13 %"}', "5000 {"];

  it("finds the first tick at or after the change that printed the new value", () => {
    expect(firstTickCarrying(ticks, 1500, "utilization.gpu", "13 %")).toBe(3000);
    expect(firstTickCarrying(ticks, 3000, "utilization.gpu", "13 %")).toBe(3000);
  });

  it("answers null when no tick after the change carried it (and skips a line cut short)", () => {
    expect(firstTickCarrying(ticks, 4500, "utilization.gpu", "13 %")).toBeNull();
    expect(firstTickCarrying(ticks, 500, "utilization.gpu", "21 %")).toBeNull();
  });
});
