import { beforeAll, describe, expect, it } from "vitest";
import type { GpuSample } from "@/lib/domain/snapshot";
import { FleetState } from "@/server/fleet/fleet-state";
import { makeGpu, makeSnapshot, uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * What the ingest stores of a host's reports: the inventory when it
 * changes, and once a minute the last-seen times, written for many hosts
 * together when nothing else changed.
 */

let db: typeof import("@/server/core/db").db;
let createIngest: typeof import("@/server/fleet/ingest").createIngest;
let ensureLocalHost: typeof import("@/server/hosts/host-registry").ensureLocalHost;

beforeAll(async () => {
  await useTestDatabase();
  ({ db } = await import("@/server/core/db"));
  ({ createIngest } = await import("@/server/fleet/ingest"));
  ({ ensureLocalHost } = await import("@/server/hosts/host-registry"));
});

const MINUTE = 60_000;

async function stored(hostId: string) {
  return db().host.findUniqueOrThrow({
    where: { id: hostId },
    select: {
      lastSeenAt: true,
      driverVersion: true,
      gpus: { orderBy: { index: "asc" }, select: { uuid: true, index: true, migMode: true, memoryTotalMiB: true, lastSeenAt: true } },
    },
  });
}

describe("the ingest's writes of hosts and GPUs", () => {
  it("stores the inventory, then moves the last-seen times of every host and GPU it reports, and stores a changed GPU in full", async () => {
    const t0 = Date.now() - 10 * MINUTE;
    let now = t0;
    const fleet = new FleetState({ offlineAfterMs: 30_000, simulated: true, now: () => now });
    const ingest = createIngest(fleet, () => now);
    const hosts = await Promise.all([1, 2, 3].map(() => ensureLocalHost(uniqueName("node"), true)));
    const gpus = new Map<string, GpuSample[]>(hosts.map((host) => [host.id, [makeGpu({ index: 0 }), makeGpu({ index: 1 })]]));
    for (const host of hosts) fleet.connectHost(host.id, host.name, true);
    const report = async (at: number, change: (host: string, gpus: GpuSample[]) => GpuSample[] = (_, list) => list) => {
      now = at;
      for (const host of hosts) {
        const reply = await ingest.ingestBatch(host, [makeSnapshot(change(host.id, gpus.get(host.id)!), at - 100)]);
        expect(reply.accepted).toBe(1);
      }
      await ingest.flush();
    };

    await report(t0);
    for (const host of hosts) {
      const row = await stored(host.id);
      expect(row.lastSeenAt?.getTime()).toBe(t0 - 100);
      expect(row.driverVersion).toBe("580.159.04");
      expect(row.gpus.map((gpu) => gpu.uuid)).toEqual(gpus.get(host.id)!.map((gpu) => gpu.uuid));
      expect(row.gpus.every((gpu) => gpu.lastSeenAt.getTime() === t0 - 100)).toBe(true);
    }

    // Within the minute nothing is written; a minute on, every host and GPU is seen again.
    await report(t0 + 30_000);
    expect((await stored(hosts[0]!.id)).lastSeenAt?.getTime()).toBe(t0 - 100);
    await report(t0 + MINUTE);
    for (const host of hosts) {
      const row = await stored(host.id);
      expect(row.lastSeenAt?.getTime()).toBe(t0 + MINUTE - 100);
      expect(row.gpus.map((gpu) => gpu.lastSeenAt.getTime())).toEqual([t0 + MINUTE - 100, t0 + MINUTE - 100]);
    }

    // Same GPUs, but one switched to MIG and reports less memory: its row follows, the other hosts' rows only move in time.
    const changed = hosts[1]!.id;
    await report(t0 + 2 * MINUTE, (host, list) => (host === changed ? [{ ...list[0]!, migMode: "Enabled", memoryTotalMiB: 40_000 }, list[1]!] : list));
    const row = await stored(changed);
    expect(row.gpus[0]).toMatchObject({ migMode: "Enabled", memoryTotalMiB: 40_000 });
    expect(row.gpus[0]!.lastSeenAt.getTime()).toBe(t0 + 2 * MINUTE - 100);
    expect((await stored(hosts[0]!.id)).gpus.map((gpu) => gpu.migMode)).toEqual(["Disabled", "Disabled"]);
    expect((await stored(hosts[0]!.id)).lastSeenAt?.getTime()).toBe(t0 + 2 * MINUTE - 100);
  });

  it("leaves the last-seen time of a GPU the host no longer reports", async () => {
    const t0 = Date.now() - 10 * MINUTE;
    let now = t0;
    const fleet = new FleetState({ offlineAfterMs: 30_000, simulated: true, now: () => now });
    const ingest = createIngest(fleet, () => now);
    const host = await ensureLocalHost(uniqueName("node"), true);
    fleet.connectHost(host.id, host.name, true);
    const [kept, removed] = [makeGpu({ index: 0 }), makeGpu({ index: 1 })];
    await ingest.ingestBatch(host, [makeSnapshot([kept!, removed!], t0)]);
    now = t0 + MINUTE;
    await ingest.ingestBatch(host, [makeSnapshot([kept!], now)]);
    now = t0 + 2 * MINUTE;
    await ingest.ingestBatch(host, [makeSnapshot([kept!], now)]);
    await ingest.flush();
    const row = await stored(host.id);
    expect(row.gpus.map((gpu) => [gpu.uuid, gpu.lastSeenAt.getTime()])).toEqual([
      [kept!.uuid, t0 + 2 * MINUTE],
      [removed!.uuid, t0],
    ]);
  });
});
