import { beforeAll, describe, expect, it } from "vitest";
import { launchSettings } from "@/lib/domain/launch-settings";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * A booking across nodes on SQLite and PostgreSQL: all parts or none, under
 * simultaneous requests; every GPU of every part counted by the limits;
 * each part an ordinary booking of its host with its own node's launch lines.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createMultiNodeBooking: typeof import("@/server/bookings/commands/create-multi-node").createMultiNodeBooking;
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let getBooking: typeof import("@/server/bookings/views/list-bookings").getBooking;
let saveLimits: typeof import("@/server/bookings/rules/limits-store").saveLimits;
let personSubject: typeof import("@/server/bookings/rules/limits-store").personSubject;
let db: typeof import("@/server/core/db").db;
let hostRegistry: typeof import("@/server/hosts/host-registry");
let fx: Fixtures;

const NOW = new Date("2026-12-01T10:00:00Z");

beforeAll(async () => {
  await useTestDatabase();
  ({ createMultiNodeBooking } = await import("@/server/bookings/commands/create-multi-node"));
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ getBooking } = await import("@/server/bookings/views/list-bookings"));
  ({ saveLimits, personSubject } = await import("@/server/bookings/rules/limits-store"));
  ({ db } = await import("@/server/core/db"));
  hostRegistry = await import("@/server/hosts/host-registry");
  fx = await import("@/server/testing/booking-fixtures");
}, 120_000);

const createFleet = (hosts: number, gpus: number) => fx.createModelFleet(hosts, gpus);

type Outcome = { ok: true; id: string; hosts: string[] } | { ok: false; code: string; message: string };

async function settle(promise: ReturnType<typeof createMultiNodeBooking>): Promise<Outcome> {
  try {
    const booking = await promise;
    return { ok: true, id: booking.id, hosts: booking.parts.map((part) => part.host.name) };
  } catch (error) {
    const failure = error as { code?: string; message?: string };
    return { ok: false, code: failure.code ?? "unexpected", message: String(failure.message) };
  }
}

describe("a booking across nodes", () => {
  it("books 2 nodes × 4 GPUs as two parts of one booking, each with its node's rank and rendezvous", async () => {
    const { model, names } = await createFleet(3, 4);
    const person = await fx.createTestUser();
    const booking = await createMultiNodeBooking(person, { nodes: 2, gpusPerNode: 4, model, durationMinutes: 120, purpose: "ddp run" }, { now: NOW });

    expect(booking.nodeCount).toBe(2);
    expect(booking.label).toBe(`2 × 4 ${model}`);
    expect(booking.parts.map((part) => part.host.name)).toEqual(names.slice(0, 2));
    expect(booking.parts.map((part) => part.multiNode?.partLabel)).toEqual([`2 × 4 ${model}, node 1 of 2`, `2 × 4 ${model}, node 2 of 2`]);
    expect(booking.id).toBe(booking.parts[0].id);
    expect(booking.explanation).toContain(names[0]);

    const [first, second] = booking.parts;
    expect(second.launch.node).toMatchObject({ nodeRank: 1, nodeCount: 2, worldSize: 8, masterAddr: names[0] });
    expect(second.launch.node?.env).toMatchObject({ CUDA_VISIBLE_DEVICES: "0,1,2,3", NODE_RANK: "1", WORLD_SIZE: "8", MASTER_ADDR: names[0] });
    expect(second.launch.torchrun).toContain(`--nnodes=2 --nproc_per_node=4 --node_rank=1 --rdzv_backend=c10d --rdzv_endpoint=${names[0]}:${first.launch.node?.masterPort} --rdzv_id=${booking.id}`);
    expect(first.launch.node?.mpirun).toBe(`mpirun -np 8 -H ${names[0]}:4,${names[1]}:4 --map-by ppr:4:node gpudesk run --booking ${booking.id} -- python train.py`);
    // Each part proves itself: its own GPUDESK_RESERVATION, not the other node's.
    expect(first.launch.reservationValue?.startsWith(`${first.id}.`)).toBe(true);
    expect(second.launch.reservationValue?.startsWith(`${second.id}.`)).toBe(true);

    // Each part is an ordinary booking of its host: reading either by id shows the whole booking.
    const read = await getBooking(person, second.id, NOW);
    expect(read.multiNode).toMatchObject({ id: booking.id, nodeRank: 1, nodeCount: 2 });
    expect(read.multiNode?.parts.map((part) => part.host.name)).toEqual(names.slice(0, 2));

    // The audit log names the booking once, with both parts.
    const audits = await db().auditLog.findMany({ where: { entityType: "reservation", entityId: { in: booking.parts.map((part) => part.id) }, action: "reservation.create" } });
    expect(audits).toHaveLength(1);
    expect(JSON.parse(audits[0].after ?? "{}")).toMatchObject({ nodes: 2, parts: [{ host: names[0], nodeRank: 0 }, { host: names[1], nodeRank: 1 }] });
  });

  it("two simultaneous 2-node requests over three free nodes: one wins whole, the other is refused whole, never half", async () => {
    for (let round = 0; round < 4; round += 1) {
      const { model, names } = await createFleet(3, 4);
      const [a, b] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
      const request = { nodes: 2, gpusPerNode: 4, model, durationMinutes: 60, purpose: "race" };
      const outcomes = await Promise.all([settle(createMultiNodeBooking(a, request, { now: NOW })), settle(createMultiNodeBooking(b, request, { now: NOW }))]);

      expect(outcomes.filter((outcome) => outcome.ok), JSON.stringify(outcomes)).toHaveLength(1);
      const lost = outcomes.find((outcome) => !outcome.ok);
      expect(lost).toMatchObject({ ok: false, code: "conflict" });
      expect(lost && !lost.ok ? lost.message : "").toContain("Only 1 host has 4 free");
      // Nothing of the loser's request was written: the winner's two parts are all there is.
      const rows = await db().reservation.findMany({ where: { host: { name: { in: names } } }, select: { userId: true, groupId: true } });
      expect(rows).toHaveLength(2);
      expect(new Set(rows.map((row) => row.userId)).size).toBe(1);
      expect(new Set(rows.map((row) => row.groupId)).size).toBe(1);
    }
  });

  it("a second booking across nodes gets what is left, or is refused whole", async () => {
    const { model, names } = await createFleet(3, 4);
    const person = await fx.createTestUser();
    // One GPU of the first node is taken: only nodes b and c can hold 4.
    await createBooking(await fx.createTestUser(), { host: names[0], gpus: [2], durationMinutes: 60, purpose: "single" }, { now: NOW });
    const booking = await createMultiNodeBooking(person, { nodes: 2, gpusPerNode: 4, model, durationMinutes: 60, purpose: "ddp" }, { now: NOW });
    expect(booking.parts.map((part) => part.host.name)).toEqual([names[1], names[2]]);

    const other = await fx.createTestUser();
    await expect(createMultiNodeBooking(other, { nodes: 2, gpusPerNode: 2, model, durationMinutes: 60, purpose: "late" }, { now: NOW })).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringContaining("Only 1 host has 2 free"),
    });
    expect(await db().reservation.count({ where: { userId: other.id } })).toBe(0);
  });

  it("limits count every GPU of every part: 2 × 4 over a limit of 6 GPUs at once is refused whole", async () => {
    const { model } = await createFleet(2, 4);
    const person = await fx.createTestUser();
    await db().$transaction((tx) => saveLimits(tx, personSubject(person.id), { maxGpus: 6 }));
    await expect(createMultiNodeBooking(person, { nodes: 2, gpusPerNode: 4, model, durationMinutes: 60, purpose: "too big" }, { now: NOW })).rejects.toMatchObject({
      code: "quota_exceeded",
      message: expect.stringContaining("0 of 6 GPUs at once"),
    });
    expect(await db().reservation.count({ where: { userId: person.id } })).toBe(0);
    const fits = await createMultiNodeBooking(person, { nodes: 2, gpusPerNode: 3, model, durationMinutes: 60, purpose: "fits" }, { now: NOW });
    expect(fits.parts.map((part) => part.gpus.length)).toEqual([3, 3]);
  });

  it("explicit parts: named GPUs on one host and a number on another; a part that does not fit refuses the whole booking", async () => {
    const { names } = await createFleet(2, 4);
    const person = await fx.createTestUser();
    const booking = await createMultiNodeBooking(person, { parts: [{ host: names[1], gpus: [1, 3] }, { host: names[0], gpus: 2 }], durationMinutes: 60, purpose: "named" }, { now: NOW });
    expect(booking.parts.map((part) => [part.host.name, part.gpus.map((gpu) => gpu.index)])).toEqual([
      [names[1], [1, 3]],
      [names[0], [0, 1]],
    ]);
    expect(booking.label).toMatch(/^2 × 2 /);

    const other = await fx.createTestUser();
    await expect(
      createMultiNodeBooking(other, { parts: [{ host: names[0], gpus: [3] }, { host: names[1], gpus: [1] }], durationMinutes: 60, purpose: "clash" }, { now: NOW }),
    ).rejects.toMatchObject({ code: "conflict" });
    expect(await db().reservation.count({ where: { userId: other.id } })).toBe(0);
  });

  it("any 2 nodes are taken from one fabric even when others come first by name; named parts across fabrics warn", async () => {
    const { model, names } = await createFleet(3, 2);
    const ib = (subnet: string) => ({
      devices: [{ name: "mlx5_0", ports: [{ port: 1, state: "ACTIVE", rateGbps: 400, linkLayer: "InfiniBand" as const, subnetPrefix: `fe80:0000:0000:${subnet}`, netDevice: "ib0" }] }],
      interfaces: [{ name: "ib0", addresses: ["192.168.100.7"] }, { name: "eth0", addresses: ["10.0.0.7"] }],
    });
    const hosts = await db().host.findMany({ where: { name: { in: names } }, orderBy: { name: "asc" }, select: { id: true } });
    await hostRegistry.saveHostFabric(hosts[0].id, ib("00aa"));
    await hostRegistry.saveHostFabric(hosts[1].id, ib("00bb"));
    await hostRegistry.saveHostFabric(hosts[2].id, ib("00bb"));
    const person = await fx.createTestUser();

    const booking = await createMultiNodeBooking(person, { nodes: 2, gpusPerNode: 2, model, durationMinutes: 60, purpose: "one fabric" }, { now: NOW });
    expect(booking.parts.map((part) => part.host.name)).toEqual([names[1], names[2]]);
    expect(booking.explanation).toContain("all on InfiniBand subnet fe80:0000:0000:00bb");
    expect(booking.warnings).toEqual([]);
    expect(booking.parts[1].launch.node?.env).toMatchObject({ NCCL_IB_HCA: "mlx5_0", NCCL_SOCKET_IFNAME: "ib0", MASTER_ADDR: names[1] });

    // Named across fabrics: booked, with a warning that says what it costs.
    const later = { startsAt: new Date(NOW.getTime() + 2 * 3600_000).toISOString(), durationMinutes: 60, purpose: "across" };
    const across = await createMultiNodeBooking(person, { parts: [{ host: names[0], gpus: 2 }, { host: names[1], gpus: 2 }], ...later }, { now: NOW });
    expect(across.warnings).toEqual([expect.stringContaining(`The nodes are not on one fabric (${names[0]} on InfiniBand subnet fe80:0000:0000:00aa, ${names[1]} on InfiniBand subnet fe80:0000:0000:00bb)`)]);

    // An admin's label is the fabric where it is given: nodes a and b share a rack now.
    const admin = await fx.createTestUser("admin");
    await hostRegistry.setHostFabricLabel(admin.id, hosts[0].id, "rack-1");
    await hostRegistry.setHostFabricLabel(admin.id, hosts[1].id, "rack-1");
    const evening = { startsAt: new Date(NOW.getTime() + 6 * 3600_000).toISOString(), durationMinutes: 60, purpose: "rack" };
    const rack = await createMultiNodeBooking(person, { nodes: 2, gpusPerNode: 2, model, ...evening }, { now: NOW });
    expect(rack.parts.map((part) => part.host.name)).toEqual([names[0], names[1]]);
    expect(rack.explanation).toContain('all on fabric "rack-1"');
  });

  it("one booking everywhere: the live feed and schedule label each part, the calendar and the reminder name the booking once", async () => {
    const { model, names } = await createFleet(2, 2);
    const person = await fx.createTestUser();
    const startsAt = new Date(NOW.getTime() + 10 * 60_000);
    const booking = await createMultiNodeBooking(person, { nodes: 2, gpusPerNode: 2, model, startsAt: startsAt.toISOString(), durationMinutes: 120, purpose: "ddp" }, { now: NOW });
    const { listLiveBookings, listSchedule } = await import("@/server/bookings/views/bookings-query");

    const live = (await listLiveBookings(NOW)).filter((entry) => entry.multiNode?.id === booking.id);
    expect(live.map((entry) => [entry.hostName, entry.multiNode?.partLabel])).toEqual([
      [names[0], `2 × 2 ${model}, node 1 of 2`],
      [names[1], `2 × 2 ${model}, node 2 of 2`],
    ]);
    const schedule = (await listSchedule(NOW, new Date(NOW.getTime() + 86_400_000))).filter((entry) => entry.multiNode?.id === booking.id);
    expect(schedule.map((entry) => entry.multiNode?.partLabel)).toEqual(live.map((entry) => entry.multiNode?.partLabel));

    const { listCalendarFeeds, renderCalendarFeed } = await import("@/server/calendar/calendar-feed");
    const feed = await renderCalendarFeed((await listCalendarFeeds(person)).mine.replace("/api/v1/calendar/", "").replace(/\.ics$/, ""), NOW);
    expect(feed.match(/BEGIN:VEVENT/g)).toHaveLength(1);
    expect(feed.replace(/\r\n /g, "")).toContain(`SUMMARY:GPU booking: 2 × 2 ${model} on ${names[0]} and ${names[1]}`);

    const { sendBookingReminders } = await import("@/server/notifications/booking-reminders");
    await sendBookingReminders(NOW);
    // One reminder, for the booking (its first part's id), not one per node.
    const notices = await db().personNotice.findMany({ where: { userId: person.id }, select: { key: true } });
    expect(notices).toHaveLength(1);
    expect(notices[0].key).toContain(booking.id);
  });

  it("a node lost mid-booking: the booker is told which part failed, offered a spare of the same model on the other nodes' fabric, and can move the node there", async () => {
    const { model, names } = await createFleet(4, 2);
    const ib = (subnet: string) => ({ devices: [{ name: "mlx5_0", ports: [{ port: 1, state: "ACTIVE", rateGbps: 400, linkLayer: "InfiniBand" as const, subnetPrefix: `fe80:0000:0000:${subnet}`, netDevice: "ib0" }] }] });
    const hosts = await db().host.findMany({ where: { name: { in: names } }, orderBy: { name: "asc" }, select: { id: true, name: true } });
    // a, b and d on one subnet; c, first by name among the spares, on another.
    for (const [at, subnet] of ["00a1", "00a1", "00c3", "00a1"].entries()) await hostRegistry.saveHostFabric(hosts[at].id, ib(subnet));
    const person = await fx.createTestUser();
    const booking = await createMultiNodeBooking(person, { parts: [{ host: names[0], gpus: 2 }, { host: names[1], gpus: 2 }], durationMinutes: 120, purpose: "ddp" }, { now: NOW });
    const { tellOfFailedNode } = await import("@/server/notifications/node-failure");
    const { onPersonNotice } = await import("@/server/notifications/notify-person");
    const heard: { title: string; text: string }[] = [];
    const stop = onPersonNotice((notice) => notice.userId === person.id && heard.push({ title: notice.title, text: notice.text }));
    try {
      const alert = { id: `alert-${names[1]}`, kind: "host_offline" as const, subjectKey: `host:${hosts[1].id}`, host: { id: hosts[1].id, name: names[1] }, gpu: null, reservationId: null, bookedById: null, people: [], message: `${names[1]} stopped reporting`, evidence: {}, openedAt: NOW.toISOString(), closedAt: null, acknowledgedAt: null, acknowledgedBy: null };
      const later = new Date(NOW.getTime() + 10 * 60_000);
      expect(await tellOfFailedNode({ serverTime: later.toISOString(), event: "opened", alert }, undefined, later)).toBe(1);
      // Once per alert and part.
      expect(await tellOfFailedNode({ serverTime: later.toISOString(), event: "opened", alert }, undefined, later)).toBe(0);
    } finally {
      stop();
    }
    // The spare, swapped in: the part keeps its id and rank, on the new host from now; the failed host's GPUs are free.
    const { replacePart } = await import("@/server/bookings/commands/replace-part");
    const later = new Date(NOW.getTime() + 10 * 60_000);
    await expect(replacePart(person, booking.parts[1].id, names[0], { now: later })).rejects.toMatchObject({ message: `${names[0]} already holds a node of this booking` });
    const moved = await replacePart(person, booking.parts[1].id, undefined, { now: later });
    expect(moved.parts.map((part) => [part.id, part.host.name])).toEqual([
      [booking.parts[0].id, names[0]],
      [booking.parts[1].id, names[3]],
    ]);
    expect(moved.parts[1].launch.node?.env).toMatchObject({ NODE_RANK: "1", MASTER_ADDR: names[0], CUDA_VISIBLE_DEVICES: "0,1" });
    expect(moved.parts[0].launch.node?.mpirun).toContain(`-H ${names[0]}:2,${names[3]}:2`);
    const other = await fx.createTestUser();
    await expect(createBooking(other, { host: names[1], gpus: [0, 1], durationMinutes: 60, purpose: "freed" }, { now: later })).resolves.toMatchObject({ host: { name: names[1] } });
    expect(await db().auditLog.count({ where: { action: "reservation.replace_part", entityId: booking.id } })).toBe(1);

    expect(heard).toEqual([
      {
        title: `Node 2 of 2 (${names[1]}) of your booking 2 × 2 ${model} failed`,
        text: `${names[1]} stopped reporting. This is node 2 of 2 of your booking "ddp" (2 × 2 ${model}, booking ${booking.id}). A spare is free for the rest of the booking: ${names[3]}, GPUs 0, 1, on the fabric of your other nodes. Move the node there with: gpudesk reserve --replace-part ${booking.parts[1].id} --host ${names[3]}`,
      },
    ]);
  });

  it("a part's launch lines follow its own GPUs: the node lines of a one-host booking are absent", () => {
    const gpus = [{ index: 5, uuid: "GPU-5" }, { index: 7, uuid: "GPU-7" }];
    expect(launchSettings(gpus, null).node).toBeUndefined();
    const node = launchSettings(gpus, null, { bookingId: "b1", nodeRank: 1, nodes: [{ host: "a", gpus: 2 }, { host: "b", gpus: 2 }], fabric: { ibDevices: ["mlx5_0"], socketInterface: "ib0" } }).node;
    expect(node?.env).toMatchObject({ CUDA_VISIBLE_DEVICES: "5,7", NODE_RANK: "1", WORLD_SIZE: "4", MASTER_ADDR: "a", NCCL_IB_HCA: "mlx5_0", NCCL_SOCKET_IFNAME: "ib0" });
    expect(node?.nccl).toBe("export NCCL_IB_HCA=mlx5_0 NCCL_SOCKET_IFNAME=ib0");
  });
});
