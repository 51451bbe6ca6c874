import { describe, expect, it } from "vitest";
import type { GpuReconciliation, ProcessAttribution } from "@/lib/domain/attribution";
import { liveBookingFixture, liveGpuFixture } from "@/lib/testing/live-fixtures";
import type { BookableHost } from "@/lib/domain/booking-types";
import { freeSuggestions, hostAvailability, pickerGpu, type LiveView } from "@/components/bookings/picker-state";

const NOW = Date.parse("2026-12-01T10:00:00Z");
const bob = { id: "u-bob", username: "bob", name: "Bob Member" };
const me = { id: "u-me", username: "me", name: "Me Myself" };

const reading = (uuid: string, index: number, users: string[]) => liveGpuFixture(uuid, users, { index, name: "NVIDIA H100" });

const attributed = (pid: number, person: typeof bob | null, login: string): ProcessAttribution => ({
  pid,
  runner: person,
  reservationId: null,
  login,
  evidence: { kind: "login", value: login },
  intruder: false,
});
const unbooked = (processes: ProcessAttribution[]): GpuReconciliation => ({ state: "unbooked_use", reservationId: null, bookedBy: null, processes, problem: null });

const host: BookableHost = {
  id: "h1",
  name: "node-a",
  simulated: true,
  gpus: [0, 1, 2, 3].map((index) => ({ uuid: `GPU-${index}`, index, name: "NVIDIA H100", memoryTotalMiB: 81559 })),
};
const carolsBooking = liveBookingFixture([{ uuid: "GPU-3", index: 3 }], { id: "u-carol", username: "carol", name: "Carol" });

// GPU 0 free; GPU 1 runs Bob's job without a booking; GPU 2 runs only my own job; GPU 3 is Carol's booking.
const live: LiveView = {
  ready: true,
  gpus: {
    "GPU-0": reading("GPU-0", 0, []),
    "GPU-1": reading("GPU-1", 1, ["bob"]),
    "GPU-2": reading("GPU-2", 2, ["me"]),
    "GPU-3": reading("GPU-3", 3, []),
  },
  onlineHostIds: new Set(["h1"]),
  bookings: [carolsBooking],
  states: {
    "GPU-1": unbooked([attributed(100, bob, "bob")]),
    "GPU-2": unbooked([attributed(200, me, "me")]),
  },
};
const now = { startMs: NOW, endMs: NOW + 3_600_000 };
const tomorrow = { startMs: NOW + 86_400_000, endMs: NOW + 90_000_000 };

describe("pickerGpu", () => {
  it("tells free, someone else's unbooked work, my own unbooked work and a booking apart, for a booking that starts now", () => {
    expect(pickerGpu({ uuid: "GPU-0" }, "h1", live, now, NOW, me.id)).toMatchObject({ kind: "free", state: "free" });
    expect(pickerGpu({ uuid: "GPU-1" }, "h1", live, now, NOW, me.id)).toMatchObject({
      kind: "busy",
      state: "unbooked_use",
      runners: ["Bob Member"],
      commands: ["python train-bob.py"],
    });
    expect(pickerGpu({ uuid: "GPU-2" }, "h1", live, now, NOW, me.id)).toMatchObject({ kind: "mine", runners: [] });
    expect(pickerGpu({ uuid: "GPU-3" }, "h1", live, now, NOW, me.id)).toMatchObject({ kind: "taken", taken: { reservationId: "r1" } });
  });

  it("does not offer a GPU that holds memory with no process listed, and says why", () => {
    const held = { ...reading("GPU-0", 0, []), memoryUsedMiB: 40_960, utilizationGpuPct: 87 };
    const before = { ...live, gpus: { ...live.gpus, "GPU-0": held }, states: {} };
    // Before the server's states arrive, the same rule on the reading.
    expect(pickerGpu({ uuid: "GPU-0" }, "h1", before, now, NOW, me.id)).toMatchObject({ kind: "busy", state: "unbooked_use", runners: [], unseen: "no process visible (40 GiB held)" });
    const reconciled = { ...before, states: { "GPU-0": { ...unbooked([]), unseenUse: { memoryMiB: 40_960 } } } };
    expect(pickerGpu({ uuid: "GPU-0" }, "h1", reconciled, now, NOW, me.id)).toMatchObject({ kind: "busy", unseen: "no process visible (40 GiB held)" });
    expect(freeSuggestions([0, 1], host, before, now, NOW)).toEqual([]);
    expect(hostAvailability(host, before, now, NOW)).toBe("0 of 4 free, 3 in use without a booking, 1 booked and idle");
    // A later window: the bookings decide, as for any work running now.
    expect(pickerGpu({ uuid: "GPU-0" }, "h1", before, tomorrow, NOW, me.id).kind).toBe("free");
  });

  it("ignores what runs now for a booking that starts tomorrow", () => {
    expect(pickerGpu({ uuid: "GPU-1" }, "h1", live, tomorrow, NOW, me.id).kind).toBe("free");
  });

  it("names the login of a process nobody can be named for, before the server's states arrive", () => {
    expect(pickerGpu({ uuid: "GPU-1" }, "h1", { ...live, states: {} }, now, NOW, me.id)).toMatchObject({ kind: "busy", runners: ["bob"] });
  });
});

describe("hostAvailability", () => {
  it("counts by the one rule for now, and by bookings for later", () => {
    expect(hostAvailability(host, live, now, NOW)).toBe("1 of 4 free, 2 in use without a booking, 1 booked and idle");
    expect(hostAvailability(host, live, tomorrow, NOW)).toBe("4 of 4 free then");
  });
});

describe("freeSuggestions", () => {
  it("never suggests a GPU with processes for a booking that starts now", () => {
    expect(freeSuggestions([0, 1, 2], host, live, now, NOW)).toEqual([0]);
    expect(freeSuggestions([0, 1, 2], host, live, tomorrow, NOW)).toEqual([0, 1, 2]);
  });
});

describe("before the live snapshot", () => {
  it("claims nothing: no GPU is free or offline yet", () => {
    const waiting: LiveView = { ready: false, gpus: {}, onlineHostIds: new Set(), bookings: [], states: {} };
    expect(pickerGpu({ uuid: "GPU-0" }, "h1", waiting, now, NOW, me.id).kind).toBe("unknown");
    expect(hostAvailability(host, waiting, now, NOW)).toBe("4 GPUs");
  });
});
