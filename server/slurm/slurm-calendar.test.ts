import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { deriveGpuState, isGpuFreeFor } from "@/lib/domain/gpu-availability";
import { gpuStateLabel } from "@/lib/domain/attribution";
import type { LiveBooking, LiveGpu } from "@/lib/live/live";
import { slurmHoldsByGpu } from "@/server/attribution/reconcile-fleet";
import { buildSlurmCalendar, type SlurmCalendarHost } from "@/server/slurm/slurm-calendar";
import { jobsAnswer, reservationsAnswer, toSlurmJob, toSlurmReservation } from "@/server/slurm/slurm-model";
import { formatStatus } from "@/host/cli-client/format-output";
import { pickerGpu, type LiveView } from "@/components/bookings/picker-state";

/**
 * Slurm on gpudesk's calendar, from answers recorded from the real Slurm 26.05
 * (scripts/slurm/record-calendar-fixtures.ts): ann's job 1 under the booking
 * b7's reservation (Slurm gave it GPUs 2-3), bob's job 2 running on GPUs 4-5
 * of slurm-a outside any reservation, ann's job 3 for all 8 GPUs of slurm-a
 * waiting (Resources), a reservation "course" of 2 GPUs on slurm-a for bob and
 * a maintenance reservation "maint" of the whole of slurm-b, neither made by gpudesk.
 */
const fixture = (name: string): unknown => JSON.parse(readFileSync(path.join(__dirname, "fixtures", name), "utf8"));
const jobs = jobsAnswer.parse(fixture("calendar-jobs.json")).jobs.map(toSlurmJob);
const reservations = reservationsAnswer.parse(fixture("calendar-reservations.json")).reservations.map(toSlurmReservation);
const at = (seconds: number) => new Date(seconds * 1000).toISOString();
/** When it was recorded: both jobs had started. */
const NOW = 1796668120_000;

const gpusOf = (host: string, count: number) => Array.from({ length: count }, (_, index) => ({ id: `${host}-row-${index}`, uuid: `GPU-${host}-${index}`, index }));
const hosts: SlurmCalendarHost[] = [
  { id: "h-a", name: "dgx-a", node: "slurm-a", gpus: gpusOf("a", 8) },
  { id: "h-b", name: "dgx-b", node: "slurm-b", gpus: gpusOf("b", 8) },
  { id: "h-plain", name: "plain", node: null, gpus: gpusOf("p", 2) },
];
const calendar = buildSlurmCalendar(jobs, reservations, hosts, NOW);
const indices = (block: { gpus: { index: number }[] }) => block.gpus.map((gpu) => gpu.index);

describe("Slurm's jobs and foreign reservations on the calendar (recorded from Slurm 26.05)", () => {
  it("holds a running job's GPUs (gres_detail) until its time limit, a waiting job's from its expected start, foreign reservations over their times", () => {
    expect(calendar.blocks.map((block) => ({ kind: block.kind, id: block.id, user: block.user, state: block.state, host: block.hostName, gpus: indices(block), startsAt: block.startsAt, endsAt: block.endsAt }))).toEqual([
      { kind: "job", id: "2", user: "bob", state: "running", host: "dgx-a", gpus: [4, 5], startsAt: at(1796668110), endsAt: at(1796670810) },
      // 2 GPUs, no indices: drawn on the highest that bob's job does not hold then.
      { kind: "reservation", id: "course", user: "bob", state: "reserved", host: "dgx-a", gpus: [6, 7], startsAt: at(1796669910), endsAt: at(1796673510) },
      { kind: "job", id: "3", user: "ann", state: "pending", host: "dgx-a", gpus: [0, 1, 2, 3, 4, 5, 6, 7], startsAt: at(1796673541), endsAt: at(1796674741) },
      // A maintenance reservation names no GPU count: the whole node.
      { kind: "reservation", id: "maint", user: "root", state: "reserved", host: "dgx-b", gpus: [0, 1, 2, 3, 4, 5, 6, 7], startsAt: at(1796675310), endsAt: at(1796682510) },
    ]);
  });

  it("takes a job under a booking's reservation as the booker's run, with the indices Slurm gave it, not as a block", () => {
    expect(calendar.runs).toEqual([{ bookingId: "b7", jobId: 1, user: "ann", hostId: "h-a", hostName: "dgx-a", gpuIndices: [2, 3], until: at(1796669910) }]);
    expect(calendar.blocks.some((block) => block.id === "1" || block.id === "gpudesk-b7")).toBe(false);
  });

  it("draws nothing on hosts outside Slurm, and nothing once a job's time is over", () => {
    expect(calendar.blocks.some((block) => block.hostId === "h-plain")).toBe(false);
    expect(buildSlurmCalendar(jobs.filter((job) => job.id === 2), [], hosts, 1796670810_000).blocks).toEqual([expect.objectContaining({ id: "2" })]);
    expect(buildSlurmCalendar([], reservations, hosts, 1796682510_000).blocks).toEqual([]);
  });
});

describe("the one availability rule with Slurm", () => {
  const reading = { eccErrorsUncorrected: 0, processes: [], memoryUsedMiB: 0, memoryTotalMiB: 81920, utilizationGpuPct: 0 };
  const ann = { id: "u-ann", username: "ann", name: "Ann" };
  const b7: LiveBooking = { reservationId: "b7", hostId: "h-a", hostName: "dgx-a", gpus: [{ uuid: "GPU-a-0", index: 0 }, { uuid: "GPU-a-1", index: 1 }], bookedBy: ann, startsAt: at(1796668000), endsAt: at(1796671710), purpose: "train" };
  const live = (index: number): LiveGpu => ({ uuid: `GPU-a-${index}`, hostId: "h-a", hostName: "dgx-a", index, name: "NVIDIA H100", ...reading }) as unknown as LiveGpu;
  const gpus = Array.from({ length: 8 }, (_, index) => live(index));
  const active = new Map([["GPU-a-0", b7], ["GPU-a-1", b7]]);
  const holds = slurmHoldsByGpu(calendar, NOW, active, gpus);
  const state = (index: number) => deriveGpuState({ gpu: reading, online: true, booking: active.has(`GPU-a-${index}`) ? { reservationId: "b7", bookedBy: ann } : null, attributions: new Map(), slurm: holds.get(`GPU-a-${index}`) ?? null });

  it("a GPU Slurm's own job holds is not free (in use without a booking, the job named), for anyone", () => {
    expect(state(4)).toMatchObject({ state: "unbooked_use", slurm: { kind: "job", id: "2", user: "bob", until: at(1796670810) } });
    expect(isGpuFreeFor(state(4), "u-bob")).toBe(false);
    // The course reservation starts later, the waiting job later still: free now.
    expect(state(6)).toMatchObject({ state: "free" });
    expect(state(6).slurm).toBeUndefined();
  });

  it("the booker's job under the booking's reservation makes the booking's GPUs booked and in use, with the job id", () => {
    expect(state(0)).toMatchObject({ state: "booked_in_use", slurm: { kind: "booked-job", id: "1", user: "ann" } });
    expect(state(1)).toMatchObject({ state: "booked_in_use", slurm: { kind: "booked-job", id: "1" } });
  });

  it("gpudesk status counts them and names the job and its end", () => {
    const text = formatStatus({ hosts: [{ id: "h-a", name: "dgx-a", online: true }], gpus, bookings: [b7], gpuStates: Object.fromEntries(gpus.map((gpu) => [gpu.uuid, state(gpu.index)])) } as never, NOW);
    expect(text.split("\n")[0]).toBe("GPUs: 4 of 8 free, 2 in use without a booking, 2 in use by its booker");
    // The STATE column says Slurm holds it (the state stays unbooked_use for scripts: the summary counts it so).
    expect(text).toMatch(/dgx-a\s+GPU 4 .*Held by Slurm \(job 2 of bob\)\s+-\s+\S+ \S+ ?\S*\s+Slurm job 2 of bob/);
    expect(text).toMatch(/dgx-a\s+GPU 0 .*Booked, in use\s+Ann.*Slurm job 1/);
  });

  it("the form's picker shows a unit a Slurm block holds in the window as taken, by whom and until when", () => {
    const view: LiveView = { ready: true, gpus: Object.fromEntries(gpus.map((gpu) => [gpu.uuid, gpu])), onlineHostIds: new Set(["h-a"]), bookings: [], states: {}, slurm: calendar.blocks };
    const later = { startMs: 1796673600_000, endMs: 1796677200_000 };
    expect(pickerGpu({ uuid: "GPU-a-6" }, "h-a", view, later, NOW, "u-ann")).toMatchObject({ kind: "taken", taken: null, slurm: { kind: "job", id: "3" } });
    expect(pickerGpu({ uuid: "GPU-a-6" }, "h-a", view, { startMs: NOW, endMs: NOW + 600_000 }, NOW, "u-ann")).toMatchObject({ kind: "free", slurm: null });
  });

  it("a GPU under a maintenance reservation reads as Slurm's reservation, not as use without a booking, on every surface", () => {
    const inMaint = 1796676000_000;
    const gpusB = Array.from({ length: 8 }, (_, index) => ({ ...live(index), uuid: `GPU-b-${index}`, hostId: "h-b", hostName: "dgx-b" }) as LiveGpu);
    const maintHolds = slurmHoldsByGpu(calendar, inMaint, new Map(), gpusB);
    const held = deriveGpuState({ gpu: reading, online: true, booking: null, attributions: new Map(), slurm: maintHolds.get("GPU-b-3") ?? null });
    expect(held).toMatchObject({ state: "unbooked_use", slurm: { kind: "reservation", id: "maint" } });
    expect(gpuStateLabel(held, (iso) => iso.slice(11, 16))).toBe("Slurm reservation maint until 22:28");
    expect(gpuStateLabel(held)).toBe("Slurm reservation maint");
    expect(gpuStateLabel(state(4))).toBe("Held by Slurm (job 2 of bob)");
    expect(gpuStateLabel(state(4), (iso) => iso.slice(11, 16))).toBe("Held by Slurm (job 2 of bob) until 19:13");
    // Use without a booking that is not Slurm's keeps its words; so does the booker's job under the booking.
    expect(gpuStateLabel({ state: "unbooked_use" })).toBe("In use, not booked");
    expect(gpuStateLabel(state(0))).toBe("Booked, in use");
    const text = formatStatus({ hosts: [{ id: "h-b", name: "dgx-b", online: true }], gpus: gpusB, bookings: [], gpuStates: Object.fromEntries(gpusB.map((gpu) => [gpu.uuid, deriveGpuState({ gpu: reading, online: true, booking: null, attributions: new Map(), slurm: maintHolds.get(gpu.uuid) ?? null })])) } as never, inMaint);
    expect(text).toMatch(/dgx-b\s+GPU 3 .*Slurm reservation maint\s/);
  });
});
