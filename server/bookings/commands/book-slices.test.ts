import { beforeAll, describe, expect, it } from "vitest";
import type { GpuSample } from "@/lib/domain/snapshot";
import { useTestDatabase } from "@/server/testing/test-db";

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let recordHostInventory: typeof import("@/server/hosts/host-registry").recordHostInventory;
let ensureLocalHost: typeof import("@/server/hosts/host-registry").ensureLocalHost;
let listBookableHosts: typeof import("@/server/bookings/views/bookings-query").listBookableHosts;
let db: typeof import("@/server/core/db").db;
let fx: Fixtures;
let factories: typeof import("@/server/testing/factories");

const NOW = new Date("2026-12-01T10:00:00Z");
const iso = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000).toISOString();

beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ recordHostInventory, ensureLocalHost } = await import("@/server/hosts/host-registry"));
  ({ listBookableHosts } = await import("@/server/bookings/views/bookings-query"));
  ({ db } = await import("@/server/core/db"));
  fx = await import("@/server/testing/booking-fixtures");
  factories = await import("@/server/testing/factories");
}, 60_000);

const PROFILES: [string, number][] = [
  ["3g.40gb", 40448],
  ["2g.20gb", 20096],
  ["1g.10gb", 9984],
  ["1g.10gb", 9984],
];

/** An H100 split 3g.40gb + 2g.20gb + 1g.10gb + 1g.10gb (the real recording's layout) and a whole GPU 1. */
async function migHost(): Promise<{ id: string; name: string; parent: GpuSample; slices: GpuSample[] }> {
  const name = factories.uniqueName("mig");
  const host = await ensureLocalHost(name, true);
  const parent = factories.makeGpu({ index: 0, migMode: "Enabled", memoryTotalMiB: 81559, utilizationGpuPct: null });
  const slices = PROFILES.map(([profile, memory], deviceIndex) =>
    factories.makeGpu({
      index: 0,
      uuid: `MIG-${factories.gpuUuid().slice(4)}`,
      memoryTotalMiB: memory,
      memoryUsedMiB: 9,
      utilizationGpuPct: null,
      migMode: "Enabled",
      mig: { parentUuid: parent.uuid, profile, gpuInstanceId: [2, 3, 9, 10][deviceIndex]!, computeInstanceId: 0, deviceIndex },
    }),
  );
  const whole = factories.makeGpu({ index: 1 });
  await recordHostInventory(host.id, { name, driverVersion: "590.48.01", cudaVersion: "13.1" }, [parent, ...slices, whole], NOW);
  return { id: host.id, name, parent, slices };
}

describe("booking MIG slices", () => {
  it("four people book the four slices of a split H100; a fifth is refused naming the booker; the parent is not bookable", async () => {
    const host = await migHost();
    const people = await Promise.all(Array.from({ length: 5 }, () => fx.createTestUser()));
    const refs = ["0:0", "0:1", "0:2", "0:3"];
    const views = await Promise.all(refs.map((ref, i) => createBooking(people[i]!, { host: host.name, slices: [ref], startsAt: iso(5), durationMinutes: 60, purpose: `slice ${ref}` }, { now: NOW })));
    expect(views.map((view) => view.gpus[0]!.mig)).toEqual([
      { deviceIndex: 0, profile: "3g.40gb" },
      { deviceIndex: 1, profile: "2g.20gb" },
      { deviceIndex: 2, profile: "1g.10gb" },
      { deviceIndex: 3, profile: "1g.10gb" },
    ]);
    expect(views[2]!.launch.exportUuids).toBe(`export CUDA_VISIBLE_DEVICES=${host.slices[2]!.uuid}`);
    expect(views[2]!.launch.docker).toContain(`--gpus '"device=0:2"'`);

    const fifth = await fx.refusal(createBooking(people[4]!, { host: host.name, slices: ["0:2"], startsAt: iso(30), durationMinutes: 60, purpose: "late" }, { now: NOW }));
    expect(fifth.code).toBe("conflict");
    // The booker and when the slice is next free, in the words a whole GPU's refusal uses ("GPU 2 on … is booked by … until …").
    expect(fifth.message).toBe(
      `GPU 0:2 (1g.10gb) on ${host.name} is booked by ${people[2]!.name} until ${iso(65)} (purpose: slice 0:2).`,
    );

    const parent = await fx.refusal(createBooking(people[4]!, { host: host.name, gpus: [0], startsAt: iso(5), durationMinutes: 60, purpose: "whole" }, { now: NOW }));
    expect(parent.message).toContain("split into MIG slices: book a slice instead (0:0 (3g.40gb), 0:1 (2g.20gb), 0:2 (1g.10gb), 0:3 (1g.10gb))");

    // "Any GPU" gives the whole GPU 1, never the partitioned GPU 0.
    const any = await createBooking(people[4]!, { host: host.name, count: 1, startsAt: iso(5), durationMinutes: 60, purpose: "any" }, { now: NOW });
    expect(any.gpus.map((gpu) => [gpu.index, gpu.mig])).toEqual([[1, undefined]]);
  });

  it("a refusal of a slice booked back to back names every booker and when the slice is next free", async () => {
    const host = await migHost();
    const [alice, bob, carol] = await Promise.all([fx.createTestUser(), fx.createTestUser(), fx.createTestUser()]);
    await createBooking(alice, { host: host.name, slices: ["0:2"], startsAt: iso(5), durationMinutes: 60, purpose: "first" }, { now: NOW });
    await createBooking(bob, { host: host.name, slices: ["0:2"], startsAt: iso(65), durationMinutes: 60, purpose: "second" }, { now: NOW });
    // A gap: a booking after it does not move the free time.
    await createBooking(alice, { host: host.name, slices: ["0:2"], startsAt: iso(200), durationMinutes: 30, purpose: "later" }, { now: NOW });
    const refused = await fx.refusal(createBooking(carol, { host: host.name, slices: ["0:2"], startsAt: iso(10), durationMinutes: 30, purpose: "p" }, { now: NOW }));
    expect(refused.code).toBe("conflict");
    expect(refused.message).toContain(
      `GPU 0:2 (1g.10gb) on ${host.name} is booked by ${alice.name} until ${iso(65)} (purpose: first), then by ${bob.name}; next free at ${iso(125)}`,
    );
    const body = (refused as unknown as { toJSON(): { error: { conflicts: unknown[] } } }).toJSON();
    expect(body.error.conflicts).toMatchObject([{ slice: { ref: "0:2", profile: "1g.10gb" }, bookedBy: { id: alice.id }, freeAt: iso(125), thenHeldBy: [{ id: bob.id }] }]);
  });

  it("any one slice of 2g.20gb or larger takes the smallest that fits; memory works too", async () => {
    const host = await migHost();
    const [a, b, c] = await Promise.all([fx.createTestUser(), fx.createTestUser(), fx.createTestUser()]);
    const first = await createBooking(a, { host: host.name, count: 1, slice: { profile: "2g.20gb" }, startsAt: iso(5), durationMinutes: 60, purpose: "p" }, { now: NOW });
    expect(first.gpus[0]!.mig?.profile).toBe("2g.20gb");
    expect(first.explanation).toContain("0:1 (2g.20gb)");
    const second = await createBooking(b, { host: host.name, count: 1, slice: { minMemoryMiB: 15_000 }, startsAt: iso(5), durationMinutes: 60, purpose: "p" }, { now: NOW });
    expect(second.gpus[0]!.mig?.profile).toBe("3g.40gb");
    const none = await fx.refusal(createBooking(c, { host: host.name, count: 1, slice: { profile: "3g.40gb" }, startsAt: iso(5), durationMinutes: 60, purpose: "p" }, { now: NOW }));
    expect(none.code).toBe("conflict");
    expect(none.message).toContain("is booked by");
    const tooBig = await fx.refusal(createBooking(c, { host: host.name, count: 1, slice: { profile: "4g.40gb" }, startsAt: iso(5), durationMinutes: 60, purpose: "p" }, { now: NOW }));
    expect(tooBig.message).toContain("does not have 1 MIG slice of at least 4g.40gb");
  });

  it("a slice someone runs on without a booking is refused by its name, and busyGpus carries its ref and profile", async () => {
    const host = await migHost();
    const booker = await fx.createTestUser();
    const slice = host.slices[2]!;
    const reading = { ...slice, hostId: host.id, hostName: host.name, sampledAt: NOW.toISOString(), memoryUsedMiB: 9000, processes: [factories.makeProcess(slice, { pid: 5150, user: "nina", command: "python serve.py" })] };
    const fleet = { current: () => ({ gpus: [reading], hosts: [{ id: host.id, online: true }] }) };
    const refused = await fx.refusal(createBooking(booker, { host: host.name, slices: ["0:2"], durationMinutes: 60, purpose: "over nina" }, { now: NOW, fleet }));
    expect(refused.code).toBe("gpu_in_use");
    expect(refused.message).toMatch(new RegExp(`^GPU 0:2 \\(1g\\.10gb\\) on ${host.name} runs nina: python serve\\.py\\.`));
    const body = (refused as unknown as { toJSON(): { error: { busyGpus: unknown[] } } }).toJSON();
    expect(body.error.busyGpus).toMatchObject([{ gpuIndex: 0, gpuUuid: slice.uuid, unit: "GPU 0:2 (1g.10gb)", slice: { ref: "0:2", profile: "1g.10gb" } }]);
  });

  it("the audit entry of a slice booking names the slice as every surface does", async () => {
    const host = await migHost();
    const booker = await fx.createTestUser();
    const booked = await createBooking(booker, { host: host.name, slices: ["0:1"], startsAt: iso(5), durationMinutes: 60, purpose: "audited" }, { now: NOW });
    const entry = await db().auditLog.findFirstOrThrow({ where: { entityId: booked.id, action: "reservation.create" }, select: { after: true } });
    const after = (typeof entry.after === "string" ? JSON.parse(entry.after) : entry.after) as { gpus: unknown[] };
    expect(after.gpus).toEqual([{ index: 0, uuid: host.slices[1]!.uuid, unit: "GPU 0:1 (2g.20gb)" }]);
  });

  it("30 simultaneous bookings of one slice leave one", async () => {
    const host = await migHost();
    const users = await Promise.all(Array.from({ length: 30 }, () => fx.createTestUser()));
    const outcomes = await Promise.all(
      users.map((user) =>
        createBooking(user, { host: host.name, slices: ["0:3"], startsAt: iso(10), durationMinutes: 60, purpose: "race" }, { now: NOW }).then(
          () => "ok",
          (error: { code?: string }) => error.code ?? "unexpected",
        ),
      ),
    );
    expect(outcomes.filter((o) => o === "ok")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "conflict")).toHaveLength(29);
    const sliceRow = await db().gpu.findUniqueOrThrow({ where: { uuid: host.slices[3]!.uuid }, select: { id: true } });
    expect(await db().reservationGpu.count({ where: { gpuId: sliceRow.id } })).toBe(1);
  });

  it("the form lists the parent as partitioned and its slices; a destroyed slice is no longer offered", async () => {
    const host = await migHost();
    let listed = (await listBookableHosts()).find((h) => h.id === host.id)!;
    expect(listed.gpus.map((gpu) => [gpu.index, gpu.mig?.profile ?? null, gpu.partitioned ?? false])).toEqual([
      [0, null, true],
      [0, "3g.40gb", false],
      [0, "2g.20gb", false],
      [0, "1g.10gb", false],
      [0, "1g.10gb", false],
      [1, null, false],
    ]);
    // The layout changes: the two 1g.10gb slices are destroyed, a 2g.20gb takes their place (reported later).
    const later = new Date(NOW.getTime() + 10 * 60_000);
    const replaced = factories.makeGpu({ index: 0, uuid: `MIG-${factories.gpuUuid().slice(4)}`, memoryTotalMiB: 20096, utilizationGpuPct: null, migMode: "Enabled", mig: { parentUuid: host.parent.uuid, profile: "2g.20gb", gpuInstanceId: 5, computeInstanceId: 0, deviceIndex: 2 } });
    await recordHostInventory(host.id, { name: host.name, driverVersion: "590.48.01", cudaVersion: "13.1" }, [host.parent, host.slices[0]!, host.slices[1]!, replaced], later);
    listed = (await listBookableHosts()).find((h) => h.id === host.id)!;
    expect(listed.gpus.filter((gpu) => gpu.mig).map((gpu) => [gpu.mig!.deviceIndex, gpu.mig!.profile, gpu.uuid])).toEqual([
      [0, "3g.40gb", host.slices[0]!.uuid],
      [1, "2g.20gb", host.slices[1]!.uuid],
      [2, "2g.20gb", replaced.uuid],
    ]);
  });
});
