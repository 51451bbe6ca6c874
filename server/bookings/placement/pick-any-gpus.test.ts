import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import type { LiveGpu } from "@/lib/live/live";
import type { GpuSample } from "@/lib/domain/snapshot";
import { sharedFixturesForTests } from "@/server/testing/shared-fixtures";
import { useTestDatabase } from "@/server/testing/test-db";

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let saveHostTopology: typeof import("@/server/hosts/host-registry").saveHostTopology;
let fixtures: Fixtures;

const NOW = new Date("2026-12-01T10:00:00Z");
const root = fileURLToPath(new URL("../../..", import.meta.url));
const sharedTopo = path.join(root, "..", "shared", "fixtures", "topo");
const haveShared = sharedFixturesForTests(sharedTopo, "auto-pick on the shared topologies");
const itShared = haveShared ? it : it.skip;

// Its own database: "any host" must see only the hosts these tests made.
beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ saveHostTopology } = await import("@/server/hosts/host-registry"));
  fixtures = await import("@/server/testing/booking-fixtures");
}, 120_000);

type TestHost = { id: string; name: string; gpus: GpuSample[] };

/** What the fleet shows for a GPU: free memory, and an unbooked process when `user` is given. */
function reading(host: TestHost, index: number, memoryUsedMiB = 500, user?: string): LiveGpu {
  const gpu = host.gpus[index];
  return {
    ...gpu,
    memoryTotalMiB: 81_559,
    memoryUsedMiB,
    // Idle without a process: memory held while busy with none listed would be someone's unseen job.
    utilizationGpuPct: user ? 50 : 0,
    hostId: host.id,
    hostName: host.name,
    sampledAt: NOW.toISOString(),
    processes: user
      ? [{ gpuUuid: gpu.uuid, pid: 4242, name: "python", usedMemoryMiB: memoryUsedMiB, user, command: "python train.py", startedAt: null, container: null, slurmJobId: null, reservationId: null }]
      : [],
  };
}

function fleetOf(readings: LiveGpu[], offline: string[] = []) {
  const hostIds = [...new Set(readings.map((gpu) => gpu.hostId))];
  return { current: () => ({ gpus: readings, hosts: hostIds.map((id) => ({ id, online: !offline.includes(id) })) }) };
}

async function hostWithTopology(count: number, file: string | null, prefix: string): Promise<TestHost> {
  const host = await fixtures.createTestHost(count, prefix);
  if (file) await saveHostTopology(host.id, readFileSync(file, "utf8"));
  return host;
}

const book = (count: number, host: string | undefined, fleet: ReturnType<typeof fleetOf>, who: Awaited<ReturnType<Fixtures["createTestUser"]>>) =>
  createBooking(who, { count, ...(host ? { host } : {}), durationMinutes: 60, purpose: "auto-pick" }, { now: NOW, fleet });

describe("auto-pick on recorded topologies", () => {
  itShared("prefers an NVLink-connected pair over a pair across NUMA nodes, and says so", async () => {
    const host = await hostWithTopology(4, path.join(sharedTopo, "4x-nvlink-pairs.txt"), "nvpairs");
    const user = await fixtures.createTestUser();
    // GPU 0 is taken, so the pair 0+1 is out; 1+2 would be idle too but crosses the SMP link.
    const fleet = fleetOf([reading(host, 0, 60_000, "mallory"), reading(host, 1), reading(host, 2), reading(host, 3)]);
    const view = await book(2, host.name, fleet, user);
    expect(view.gpus.map((gpu) => gpu.index)).toEqual([2, 3]);
    expect(view.explanation).toBe(`2 and 3 on ${host.name}: idle, NVLink-connected (NV4), 79 GiB free or more`);
  });

  itShared("keeps a pair on one PCIe switch together", async () => {
    const host = await hostWithTopology(4, path.join(sharedTopo, "4x-pcie-switches.txt"), "pcie");
    const user = await fixtures.createTestUser();
    // GPU 1 has the least memory used, but 1 alone would split a switch pair.
    const fleet = fleetOf([reading(host, 0, 9_000, "mallory"), reading(host, 1, 100), reading(host, 2, 600), reading(host, 3, 600)]);
    const view = await book(2, host.name, fleet, user);
    expect(view.gpus.map((gpu) => gpu.index)).toEqual([2, 3]);
    expect(view.explanation).toContain("on one PCIe switch");
  });

  it("on the project's own crossed layout, NVLink beats a shared host bridge", async () => {
    const host = await hostWithTopology(4, path.join(root, "server", "hosts", "fixtures", "4x-crossed-nvlink.txt"), "crossed");
    const user = await fixtures.createTestUser();
    const fleet = fleetOf([reading(host, 0), reading(host, 1), reading(host, 2), reading(host, 3)]);
    const first = await book(2, host.name, fleet, user);
    const second = await book(2, host.name, fleet, await fixtures.createTestUser());
    expect(first.explanation).toContain("NVLink-connected");
    expect(second.explanation).toContain("NVLink-connected");
    expect(new Set([...first.gpus, ...second.gpus].map((gpu) => gpu.index)).size).toBe(4);
  });
});

describe("auto-pick with live data", () => {
  it("never hands out a GPU someone runs on without a booking, nor one whose host is down", async () => {
    const host = await hostWithTopology(2, null, "squat");
    const down = await hostWithTopology(2, null, "down");
    const user = await fixtures.createTestUser();
    const fleet = fleetOf([reading(host, 0, 30_000, "mallory"), reading(host, 1), reading(down, 0), reading(down, 1)], [down.id]);

    const single = await book(1, host.name, fleet, user);
    expect(single.gpus.map((gpu) => gpu.index)).toEqual([1]);
    expect(single.explanation).toBe(`1 on ${host.name}: idle, 79 GiB free or more`);

    const refused = await fixtures.refusal(book(1, host.name, fleet, await fixtures.createTestUser()));
    expect(refused.code).toBe("conflict");
    expect(refused.message).toContain(`GPU 0 on ${host.name} is in use by mallory without a booking`);

    const offline = await fixtures.refusal(book(1, down.name, fleet, await fixtures.createTestUser()));
    expect(offline.code).toBe("conflict");
    expect(offline.message).toContain(`GPU 0 on ${down.name} is not reporting`);
  });

  it("books later windows by the bookings alone: a process running now may be gone by then", async () => {
    const host = await hostWithTopology(1, null, "later");
    const user = await fixtures.createTestUser();
    const fleet = fleetOf([reading(host, 0, 30_000, "mallory")]);
    const view = await createBooking(
      user,
      { count: 1, host: host.name, startsAt: new Date(NOW.getTime() + 3 * 3600_000).toISOString(), durationMinutes: 60, purpose: "tonight" },
      { now: NOW, fleet },
    );
    expect(view.gpus.map((gpu) => gpu.index)).toEqual([0]);
  });

  it("spreads wear: of two equal GPUs, the one booked less lately", async () => {
    const host = await hostWithTopology(2, null, "wear");
    const user = await fixtures.createTestUser();
    const fleet = fleetOf([reading(host, 0), reading(host, 1)]);
    // GPU 0 was booked for the last three hours; that booking ends now.
    await createBooking(user, { host: host.name, gpus: [0], durationMinutes: 180, purpose: "earlier" }, { now: new Date(NOW.getTime() - 3 * 3600_000) });
    const view = await book(1, host.name, fleet, await fixtures.createTestUser());
    expect(view.gpus.map((gpu) => gpu.index)).toEqual([1]);
  });

  it("chooses among hosts: the idle GPUs with the most free memory win", async () => {
    const user = await fixtures.createTestUser();
    const a = await hostWithTopology(1, null, "xa");
    const b = await hostWithTopology(1, null, "xb");
    const fleet = fleetOf([reading(a, 0, 40_000), reading(b, 0, 1_000)]);
    const view = await createBooking(user, { count: 1, durationMinutes: 60, purpose: "anywhere" }, { now: NOW, fleet });
    expect(view.host.name).toBe(b.name);
  });
});
