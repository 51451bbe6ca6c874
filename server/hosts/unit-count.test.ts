import { beforeAll, describe, expect, it } from "vitest";
import { countUnits, gpusPhrase, unitNoun } from "@/lib/domain/unit-count";
import { FleetState } from "@/server/fleet/fleet-state";
import { createIngest } from "@/server/fleet/ingest";
import { makeSnapshot } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * One count per thing, on a host with two GPUs, one of them split into four
 * MIG slices: Admin → Hosts (stored inventory), the live fleet the header
 * and the filter bar count, and the availability the API, the wall and
 * `gpudesk status` read all say 2 GPUs and 5 units. The old Admin → Hosts
 * said 6 GPUs (the split GPU and its slices), the filter bar 6 too.
 */

beforeAll(async () => {
  await useTestDatabase();
}, 60_000);

describe("one count per thing", () => {
  it("Admin → Hosts, the live fleet and the availability count a split GPU once and its slices as its units", async () => {
    const fx = await import("@/server/testing/booking-fixtures");
    const { listHostSummaries } = await import("@/server/hosts/host-registry");
    const { readFleetAnswer } = await import("@/server/fleet/fleet-answer");
    const host = await fx.createMigTestHost(["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]);

    const summary = (await listHostSummaries()).find((row) => row.name === host.name)!;
    expect(summary.units).toEqual({ gpus: 2, units: 5, split: 1, slices: 4 });
    expect(summary.gpuCount).toBe(2);
    expect(gpusPhrase(summary.units)).toBe("2 GPUs, one split into 4 MIG slices");

    const fleet = new FleetState({ offlineAfterMs: 600_000, simulated: true });
    const ingest = createIngest(fleet);
    fleet.connectHost(host.id, host.name, true);
    const reply = await ingest.ingestBatch(
      { id: host.id, name: host.name, simulated: true },
      [makeSnapshot([host.parent, ...host.slices, host.whole], Date.now(), { host: { name: host.name, driverVersion: "590.48.01", cudaVersion: "13.1" } })],
    );
    expect(reply.accepted).toBe(1);
    const live = countUnits(fleet.current().gpus);
    expect(live).toEqual(summary.units);
    expect(unitNoun(live)).toBe("units");

    // The header's "N of M free" and the per-host line, as the API, the wall and the CLI read them.
    const answer = await readFleetAnswer(fleet, new Date());
    expect(answer.availability.fleet.total).toBe(live.units);
    expect(Object.values(answer.availability.hosts).map((counts) => counts.total)).toEqual([live.units]);

    // The wall: one tile per unit (the split GPU is shown by its slices), and its "free / total" counts them.
    const { displayGpusFromFleet } = await import("@/lib/live/display-from-fleet");
    const { displayTiles, summarizeTiles } = await import("@/lib/live/display-state");
    const wall = displayGpusFromFleet(Object.fromEntries(answer.gpus.map((gpu) => [gpu.uuid, gpu])), new Set(answer.hosts.map((row) => row.id)), answer.bookings, answer.gpuStates, Date.now());
    const tiles = displayTiles([{ id: host.id, name: host.name, online: true, lastSeenAt: null, gpuUuids: answer.gpus.map((gpu) => gpu.uuid) }], wall);
    expect(summarizeTiles(tiles.get(host.id) ?? []).counts.total).toBe(live.units);

    // `gpudesk status` reads the same count and says it as the header does: units, and the GPUs they are.
    const { formatStatus } = await import("@/host/cli-client/format-output");
    const status = formatStatus(answer, Date.now()).split("\n")[0];
    expect(status).toMatch(new RegExp(`^Units: \\d+ of ${live.units} free.* \\(2 GPUs, one split into 4 MIG slices\\)$`));
  });
});
