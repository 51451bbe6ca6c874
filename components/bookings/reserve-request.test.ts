process.env.TZ = "America/Los_Angeles";

import { describe, expect, it } from "vitest";
import { defaultValues, serverFields, toMultiNodeRequest, toRequest, valuesFromQuery, windowOf } from "@/components/bookings/reserve-request";

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

describe("across nodes with the host of each node named in the form", () => {
  const across = { ...defaultValues(16), mode: "nodes" as const, nodes: "2", gpusPerNode: "8", purpose: "pretrain" };

  it("asks for the named hosts as parts, node 1 first, each with the GPUs per node", () => {
    const built = toMultiNodeRequest({ ...across, partHosts: ["h100-04", "h100-03"] }, 16);
    expect(built).toEqual({ ok: true, request: expect.objectContaining({ parts: [{ host: "h100-04", gpus: 8 }, { host: "h100-03", gpus: 8 }], purpose: "pretrain" }) });
    expect(built.ok && "nodes" in built.request ? built.request.nodes : undefined).toBeUndefined();
    // Without named hosts, gpudesk picks them.
    expect(toMultiNodeRequest({ ...across, partHosts: null }, 16)).toMatchObject({ ok: true, request: { nodes: 2, gpusPerNode: 8 } });
  });

  it("says which node has no host, or a host twice, and follows the number of nodes", () => {
    expect(toMultiNodeRequest({ ...across, partHosts: ["h100-04", ""] }, 16)).toEqual({ ok: false, fields: { parts: "Choose a host for each node" } });
    expect(toMultiNodeRequest({ ...across, partHosts: ["h100-04", "h100-04"] }, 16)).toMatchObject({ ok: false, fields: { parts: "Choose a different host for each node" } });
    expect(toMultiNodeRequest({ ...across, nodes: "3", partHosts: ["a", "b"] }, 24)).toMatchObject({ ok: false, fields: { parts: "Choose a host for each node" } });
    expect(toMultiNodeRequest({ ...across, nodes: "2", partHosts: ["a", "b", "c"] }, 24)).toMatchObject({ ok: true, request: { parts: [{ host: "a" }, { host: "b" }] } });
  });

  it("is prefilled from the address: /reserve?parts=a,b&gpusPerNode=4", () => {
    expect(valuesFromQuery({ parts: "a,b", gpusPerNode: "4" })).toMatchObject({ mode: "nodes", nodes: "2", gpusPerNode: "4", partHosts: ["a", "b"] });
    expect(valuesFromQuery({ parts: "a" }).partHosts).toBeNull();
  });
});
