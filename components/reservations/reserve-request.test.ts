process.env.TZ = "America/Los_Angeles";

import { describe, expect, it } from "vitest";
import { defaultValues, serverFields, toRequest, valuesFromQuery, windowOf } from "@/components/reservations/reserve-request";

describe("the booking form's request", () => {
  it("turns local times into UTC and presets into minutes", () => {
    const values = { ...defaultValues(), host: "node-a", gpus: [1, 0], startMode: "at" as const, startAt: "2026-12-01T09:00", length: "1d" as const, purpose: "train" };
    expect(toRequest(values)).toEqual({
      ok: true,
      request: { host: "node-a", gpus: [1, 0], startsAt: "2026-12-01T17:00:00.000Z", durationMinutes: 1440, purpose: "train" },
    });
  });

  it("asks for GiB and hours, sends MiB and minutes", () => {
    const values = { ...defaultValues(), mode: "count" as const, count: "2", minFreeGiB: "40", length: "custom" as const, customHours: "1.5", purpose: "eval" };
    expect(toRequest(values)).toEqual({ ok: true, request: { count: 2, minFreeMemoryMiB: 40960, durationMinutes: 90, purpose: "eval" } });
  });

  it("names each field that is wrong, with the shared schema's words", () => {
    const result = toRequest({ ...defaultValues(), length: "until", endAt: "", startMode: "at", startAt: "" });
    expect(result).toEqual({
      ok: false,
      fields: {
        host: "Choose the host of these GPUs",
        gpus: "Choose at least one GPU",
        purpose: "Say what the GPUs are for",
        startsAt: "Choose a start date and time",
        endsAt: "Choose an end date and time",
      },
    });
  });

  it("reads a prefilled address (a GPU card's Book link, a free slot on the schedule)", () => {
    const values = valuesFromQuery({ host: "node-b", gpus: "2,x,3", start: "2026-12-02T01:00:00Z", minutes: "90" });
    expect(values).toMatchObject({ host: "node-b", gpus: [2, 3], startMode: "at", startAt: "2026-12-01T17:00", length: "custom", customHours: "1.5" });
    expect(valuesFromQuery({ minutes: "240" }).length).toBe("4h");
    // A slice's row on the schedule: the slice, never its partitioned GPU.
    expect(valuesFromQuery({ host: "node-b", gpus: "0", slices: "0:2,x,0:3" })).toMatchObject({ gpus: [], slices: ["0:2", "0:3"] });
    expect(windowOf(values, Date.parse("2026-12-01T00:00:00Z"))).toEqual({
      startMs: Date.parse("2026-12-02T01:00:00Z"),
      endMs: Date.parse("2026-12-02T02:30:00Z"),
    });
  });

  it("maps the server's field keys onto the form", () => {
    expect(serverFields({ "gpus.0": "A GPU index is 0 or more", startsAt: "This time has passed", other: "?" })).toEqual({
      gpus: "A GPU index is 0 or more",
      startsAt: "This time has passed",
      _: "?",
    });
  });
});
