import { describe, expect, it } from "vitest";
import { formatSeries, parseWeekdays, parseWeeks, type SeriesAnswer } from "@/host/cli-client/weekly";

describe("gpudesk reserve --weekly", () => {
  it("reads weekdays as people write them: lists, full names, ranges, a range across the weekend", () => {
    expect(parseWeekdays("mon,wed")).toEqual([1, 3]);
    expect(parseWeekdays("Mon-Fri")).toEqual([1, 2, 3, 4, 5]);
    expect(parseWeekdays("tuesday, thu ,sat")).toEqual([2, 4, 6]);
    expect(parseWeekdays("fri-mon")).toEqual([0, 1, 5, 6]);
    expect(parseWeekdays("wed,wed,mon")).toEqual([1, 3]);
  });

  it("refuses what is not a weekday, and --weeks outside 1 to 12, each in one clear line", () => {
    expect(() => parseWeekdays("mon,funday")).toThrow('--weekly: "funday" is not a weekday (mon, tue, wed, thu, fri, sat, sun; a range such as mon-fri)');
    expect(() => parseWeekdays(",")).toThrow("--weekly needs at least one weekday");
    expect(() => parseWeekdays("mon-wed-fri")).toThrow("is not a weekday or a range");
    expect(parseWeeks("4")).toBe(4);
    expect(() => parseWeeks(undefined)).toThrow("--weekly needs --weeks");
    expect(() => parseWeeks("13")).toThrow("--weeks: whole weeks from 1 to 12");
    expect(() => parseWeeks("1.5")).toThrow("--weeks: whole weeks from 1 to 12");
  });

  it("lists the occurrences made (a booking across nodes by all its hosts) and the ones refused with their reason", () => {
    const made = (id: string, startsAt: string, endsAt: string, multi = false) =>
      ({
        id,
        startsAt,
        endsAt,
        host: { name: "node-a" },
        gpus: [{ index: 0 }, { index: 1 }],
        ...(multi ? { multiNode: { label: "2 × 2 H100", parts: [{ host: { name: "node-a" } }, { host: { name: "node-b" } }] } } : {}),
      }) as unknown as SeriesAnswer["created"][number];
    const series: SeriesAnswer = {
      created: [made("b1", "2026-12-07T09:00:00Z", "2026-12-07T12:00:00Z"), made("b2", "2026-12-09T09:00:00Z", "2026-12-09T12:00:00Z", true)],
      refused: [{ startsAt: "2026-12-14T09:00:00Z", endsAt: "2026-12-14T12:00:00Z", code: "conflict", message: "GPU 0 on node-a is booked then" }],
    };
    const text = formatSeries(series, [1, 3], 2);
    expect(text.split("\n")[0]).toBe("Booked 2 of 3 occurrences (every Mon, Wed for 2 weeks):");
    expect(text).toContain("GPUs 0, 1 on node-a  b1");
    expect(text).toContain("2 × 2 H100 on node-a and node-b  b2");
    expect(text).toMatch(/Refused:\n {2}.* GPU 0 on node-a is booked then\n$/);
  });
});
