// A zone with an offset and daylight saving time, set before any Date is made:
// nothing in booking may depend on the machine's zone.
process.env.TZ = "America/Los_Angeles";

import { beforeAll, describe, expect, it } from "vitest";
import type { LiveGpu } from "@/lib/live/live";
import type { BookingRequest } from "@/lib/domain/booking-schema";
import { useTestDatabase } from "@/server/testing/test-db";

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let updatePolicy: typeof import("@/server/bookings/rules/policy").updatePolicy;
let BookingConflictError: typeof import("@/server/bookings/store/booking-conflict").BookingConflictError;
let createTestUser: Fixtures["createTestUser"];
let createTestHost: Fixtures["createTestHost"];

const NOW = new Date("2026-12-01T10:00:00Z");
const at = (iso: string) => new Date(iso).toISOString();
const plus = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000).toISOString();

// Migrating a fresh database spawns Prisma's CLI: slow on a busy machine.
beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ updatePolicy } = await import("@/server/bookings/rules/policy"));
  ({ BookingConflictError } = await import("@/server/bookings/store/booking-conflict"));
  ({ createTestUser, createTestHost } = await import("@/server/testing/booking-fixtures"));
}, 60_000);

function request(overrides: Partial<BookingRequest>): BookingRequest {
  return { purpose: "test run", durationMinutes: 60, ...overrides };
}

const refusal = (promise: Promise<unknown>) => import("@/server/testing/booking-fixtures").then((module) => module.refusal(promise));

describe("booking a 4-GPU host", () => {
  it("gives A, B and C their own GPUs and settings, and refuses a fourth request naming bookedBy and end", async () => {
    const host = await createTestHost(4);
    const [a, b, c, d] = await Promise.all([createTestUser(), createTestUser(), createTestUser(), createTestUser()]);
    const end = plus(120);
    const ofA = await createBooking(a, request({ host: host.name, gpus: [1, 0], endsAt: end, purpose: "llama fine-tune" }), { now: NOW });
    const ofB = await createBooking(b, request({ host: host.name, gpus: [2], endsAt: end, purpose: "eval" }), { now: NOW });
    const ofC = await createBooking(c, request({ host: host.name, count: 1, durationMinutes: 90, purpose: "notebook" }), { now: NOW });

    expect(ofA.launch.cudaVisibleDevices).toBe("0,1");
    expect(ofA.launch.exportIndices).toBe("export CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,1");
    expect(ofA.launch.cudaVisibleDevicesUuids).toBe(`${host.gpus[0].uuid},${host.gpus[1].uuid}`);
    expect(ofA.gpus.map((gpu) => gpu.uuid)).toEqual([host.gpus[0].uuid, host.gpus[1].uuid]);
    expect(ofB.launch.cudaVisibleDevices).toBe("2");
    expect(ofC.launch.cudaVisibleDevices).toBe("3");
    expect(ofC.launch.torchrun).toContain("--nproc_per_node=1");
    for (const view of [ofA, ofB, ofC]) expect(view.state).toBe("active");

    const any = await refusal(createBooking(d, request({ host: host.name, count: 1 }), { now: NOW }));
    expect(any.code).toBe("conflict");
    expect(any.message).toContain(`booked by ${a.name} until ${at(end)}`);

    const named = await refusal(createBooking(d, request({ host: host.name, gpus: [2] }), { now: NOW }));
    expect(named).toBeInstanceOf(BookingConflictError);
    expect(named.message).toBe(
      `GPU 2 on ${host.name} is booked by ${b.name} until ${at(end)} (purpose: eval). It is free from ${at(end)} for as long as you asked.`,
    );
    const body = named.toJSON() as unknown as { error: { conflicts: { bookedBy: { username: string }; endsAt: string }[]; suggestion: { nextFreeAt: string } } };
    expect(body.error.conflicts).toMatchObject([{ bookedBy: { username: b.username }, endsAt: at(end) }]);
    expect(body.error.suggestion.nextFreeAt).toBe(at(end));
  });

  it("names when a GPU booked back to back is next free, and who holds it in between", async () => {
    const host = await createTestHost(1);
    const [a, b, c] = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
    await createBooking(a, request({ host: host.name, gpus: [0], startsAt: plus(5), endsAt: plus(65), purpose: "one" }), { now: NOW });
    await createBooking(b, request({ host: host.name, gpus: [0], startsAt: plus(65), endsAt: plus(125), purpose: "two" }), { now: NOW });
    const refused = await refusal(createBooking(c, request({ host: host.name, gpus: [0], startsAt: plus(10), endsAt: plus(40) }), { now: NOW }));
    expect(refused.message).toContain(`GPU 0 on ${host.name} is booked by ${a.name} until ${plus(65)} (purpose: one), then by ${b.name}; next free at ${plus(125)}`);
  });

  it("offers the other free GPUs of the host when the named ones are taken", async () => {
    const host = await createTestHost(4);
    const [a, b] = await Promise.all([createTestUser(), createTestUser()]);
    await createBooking(a, request({ host: host.name, gpus: [0] }), { now: NOW });
    const error = (await refusal(createBooking(b, request({ host: host.name, gpus: [0, 1] }), { now: NOW }))) as InstanceType<
      typeof BookingConflictError
    >;
    expect(error.suggestion.freeGpuIndices).toEqual([1, 2, 3]);
    expect(error.message).toContain(`GPUs 1, 2, 3 on ${host.name} are free for the time you asked`);
  });
});

describe("the time rules", () => {
  it("uses a zone other than UTC in this test process", () => {
    expect(new Date("2026-07-01T12:00:00Z").getTimezoneOffset()).toBe(420);
  });

  it("allows back-to-back bookings of one GPU: [start, end) ends before the next starts", async () => {
    const host = await createTestHost(1);
    const [a, b, c] = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
    await createBooking(a, request({ host: host.name, gpus: [0], startsAt: plus(0), endsAt: plus(60) }), { now: NOW });
    const next = await createBooking(b, request({ host: host.name, gpus: [0], startsAt: plus(60), endsAt: plus(120) }), { now: NOW });
    expect(next.startsAt).toBe(plus(60));
    expect(next.state).toBe("scheduled");
    const before = await createBooking(c, request({ host: host.name, gpus: [0], startsAt: plus(-1), endsAt: plus(0) }), { now: NOW }).catch(
      (error: unknown) => error,
    );
    // A minute ago is within the grace and means "now": it then ends before it starts.
    expect(before).toMatchObject({ code: "bad_request" });
    const overlapping = await refusal(createBooking(c, request({ host: host.name, gpus: [0], startsAt: plus(59), endsAt: plus(61) }), { now: NOW }));
    expect(overlapping.code).toBe("conflict");
  });

  it("refuses a start in the past, and takes a start a moment ago as now", async () => {
    const host = await createTestHost(1);
    const user = await createTestUser();
    const past = await refusal(createBooking(user, request({ host: host.name, gpus: [0], startsAt: plus(-10) }), { now: NOW }));
    expect(past.code).toBe("bad_request");
    expect(past.fields).toHaveProperty("startsAt");
    const endPassed = await refusal(createBooking(user, request({ host: host.name, gpus: [0], durationMinutes: undefined, endsAt: plus(-5) }), { now: NOW }));
    expect(endPassed.fields).toHaveProperty("endsAt");

    const moment = await createBooking(user, request({ host: host.name, gpus: [0], startsAt: new Date(NOW.getTime() - 30_000).toISOString() }), { now: NOW });
    expect(moment.startsAt).toBe(NOW.toISOString());
    expect(moment.endsAt).toBe(plus(60));
  });

  it("stores the instant a time with an offset names, whatever the server's zone", async () => {
    const host = await createTestHost(1);
    const [a, b] = await Promise.all([createTestUser(), createTestUser()]);
    // 18:00 in California on 1 December is 02:00 UTC on 2 December.
    const view = await createBooking(a, request({ host: host.name, gpus: [0], startsAt: "2026-12-01T18:00:00-08:00", endsAt: "2026-12-01T19:00:00-08:00" }), { now: NOW });
    expect(view.startsAt).toBe("2026-12-02T02:00:00.000Z");
    expect(view.endsAt).toBe("2026-12-02T03:00:00.000Z");
    // The same hour written in UTC, and in Berlin's zone, is the same booking.
    for (const startsAt of ["2026-12-02T02:30:00Z", "2026-12-02T03:30:00+01:00"]) {
      const clash = await refusal(createBooking(b, request({ host: host.name, gpus: [0], startsAt, durationMinutes: 10 }), { now: NOW }));
      expect(clash.code).toBe("conflict");
    }
    const after = await createBooking(b, request({ host: host.name, gpus: [0], startsAt: "2026-12-02T04:00:00+01:00", durationMinutes: 10 }), { now: NOW });
    expect(after.startsAt).toBe("2026-12-02T03:00:00.000Z");
  });

  it("counts a day as 24 hours across a daylight-saving change", async () => {
    const host = await createTestHost(1);
    const user = await createTestUser();
    await updatePolicy(await createTestUser("admin"), { maxDurationMinutes: 7 * 24 * 60, maxGpusPerUser: 8, maxAdvanceDays: 200 }, NOW);
    // Clocks in California jump forward on 14 March 2027.
    const view = await createBooking(user, request({ host: host.name, gpus: [0], startsAt: "2027-03-13T12:00:00Z", durationMinutes: 24 * 60 }), { now: NOW });
    expect(view.endsAt).toBe("2027-03-14T12:00:00.000Z");
    await updatePolicy(await createTestUser("admin"), { maxDurationMinutes: 7 * 24 * 60, maxGpusPerUser: 8, maxAdvanceDays: 30 }, NOW);
  });
});

describe("choosing any N GPUs", () => {
  function liveGpu(host: { id: string; name: string }, gpu: { uuid: string; index: number }, usedMiB: number, busy = false): LiveGpu {
    return {
      index: gpu.index,
      uuid: gpu.uuid,
      name: "NVIDIA H100 80GB HBM3",
      pciBusId: null,
      memoryTotalMiB: 81559,
      memoryUsedMiB: usedMiB,
      utilizationGpuPct: busy ? 90 : 0,
      utilizationMemoryPct: 0,
      temperatureC: 40,
      powerDrawW: 100,
      powerLimitW: 700,
      fanSpeedPct: null,
      smClockMHz: null,
      pstate: null,
      migMode: null,
      eccErrorsUncorrected: 0,
      hostId: host.id,
      hostName: host.name,
      sampledAt: NOW.toISOString(),
      processes: busy ? [{ gpuUuid: gpu.uuid, pid: 1, name: "python", usedMemoryMiB: usedMiB, user: "x", command: null, startedAt: null, container: null, slurmJobId: null, reservationId: null }] : [],
    };
  }

  it("takes GPUs with enough free memory now, idle ones first", async () => {
    const host = await createTestHost(4);
    const user = await createTestUser();
    const fleet = {
      current: () => ({
        gpus: [
          liveGpu(host, host.gpus[0], 80_000),
          liveGpu(host, host.gpus[1], 20_000, true),
          liveGpu(host, host.gpus[2], 1_000),
          liveGpu(host, host.gpus[3], 900),
        ],
        hosts: [{ id: host.id, online: true }],
      }),
    };
    const view = await createBooking(user, request({ host: host.name, count: 2, minFreeMemoryMiB: 40_000 }), { now: NOW, fleet });
    expect(view.gpus.map((gpu) => gpu.index)).toEqual([2, 3]);
    const tooMuch = await refusal(createBooking(user, request({ host: host.name, count: 2, minFreeMemoryMiB: 81_000 }), { now: NOW, fleet }));
    expect(tooMuch.code).toBe("bad_request");
    expect(tooMuch.fields).toHaveProperty("minFreeMemoryMiB");
  });
});

describe("bad requests", () => {
  it("names the field: an unknown host, a GPU the host does not have", async () => {
    const host = await createTestHost(2);
    const user = await createTestUser();
    const noHost = await refusal(createBooking(user, request({ host: "no-such-host", gpus: [0] }), { now: NOW }));
    expect(noHost.fields).toEqual({ host: "There is no host named no-such-host" });
    const noGpu = await refusal(createBooking(user, request({ host: host.name, gpus: [0, 5] }), { now: NOW }));
    expect(noGpu.fields?.gpus).toBe(`${host.name} has no GPU 5 (its GPUs: 0, 1)`);
  });
});
