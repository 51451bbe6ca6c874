import type { GpuReconciliation } from "@/lib/domain/attribution";
import {
  bookingTakesUnit,
  countAvailability,
  describeAvailability,
  detectUnseenUse,
  isGpuFree,
  unseenUsePhrase,
  useFor,
  type GpuState,
  type SiliconUnit,
} from "@/lib/domain/gpu-availability";
import { gpuStateOnPage } from "@/lib/live/gpu-state-now";
import type { LiveBooking, LiveGpu } from "@/lib/live/live";
import { personName } from "@/lib/format/person-name";
import { rangesOverlap } from "@/lib/domain/booking-state";
import type { BookableHost } from "@/lib/domain/booking-types";
import { slurmBlockInWindow, type SlurmBlock } from "@/lib/domain/slurm";

/**
 * What the booking form says about each GPU and each host, from the one
 * availability rule (lib/domain/gpu-availability.ts) and the live bookings: plain
 * functions, so that the form, its picker and their tests agree.
 */

/** A booking that starts within this of now is "now": what runs on the GPUs this moment decides (as on the server). */
export const STARTS_NOW_MS = 5 * 60_000;

export interface Window {
  startMs: number;
  endMs: number;
}

export interface LiveView {
  /** The live snapshot has arrived: until then nothing is known of what runs. */
  ready: boolean;
  gpus: Record<string, LiveGpu>;
  onlineHostIds: ReadonlySet<string>;
  bookings: LiveBooking[];
  states: Record<string, GpuReconciliation>;
  /** Slurm's jobs and the reservations gpudesk did not make (the page's, read-only): they take units like bookings. */
  slurm?: readonly SlurmBlock[];
}

/** The booking that takes a unit's silicon at some instant of [startMs, endMs), if any: one of the unit, its GPU or its slices (`bookingTakesUnit`). */
export function bookingInWindow(bookings: LiveBooking[], unit: SiliconUnit, startMs: number, endMs: number): LiveBooking | null {
  for (const booking of bookings) {
    if (!bookingTakesUnit(booking, unit)) continue;
    if (rangesOverlap(startMs, endMs, Date.parse(booking.startsAt), Date.parse(booking.endsAt))) return booking;
  }
  return null;
}

export function startsNow(window: Window | null, nowMs: number): boolean {
  return !window || window.startMs <= nowMs + STARTS_NOW_MS;
}

/**
 * A GPU in the picker: `taken` by a booking during the window (cannot be
 * picked), else by what runs there now when the window starts now: `busy`
 * with someone else's work (pickable, with a warning and an explicit "book
 * anyway"), `mine` with only the viewer's own unbooked work (booking claims
 * it), `error` or `offline`; else `free`.
 */
/** Before the live snapshot arrives: `unknown`. */
export type PickerKind = "free" | "taken" | "busy" | "mine" | "error" | "offline" | "unknown";

export interface PickerGpu {
  kind: PickerKind;
  state: GpuState;
  taken: LiveBooking | null;
  /** Slurm's job or foreign reservation that holds it during the window (`kind` "taken"); null otherwise. */
  slurm: SlurmBlock | null;
  /** Who runs there besides the viewer, as people are shown ("Bob Member", else the login). */
  runners: string[];
  /** Their commands, for the warning (the first few). */
  commands: string[];
  /** "no process visible (40 GiB held)": used with no process listed (a job nvidia-smi cannot see); null otherwise. */
  unseen: string | null;
}

/** One GPU of the picker, for this viewer and window. */
export function pickerGpu(unit: SiliconUnit, hostId: string, live: LiveView, window: Window | null, nowMs: number, viewerId: string): PickerGpu {
  const { uuid } = unit;
  const reading = live.gpus[uuid];
  const taken = window ? bookingInWindow(live.bookings, unit, window.startMs, window.endMs) : null;
  // Slurm's hold in the window; with no window yet, the one now.
  const slurm = slurmBlockInWindow(live.slurm ?? [], uuid, window?.startMs ?? nowMs, window?.endMs ?? nowMs + 1);
  const online = live.onlineHostIds.has(hostId);
  const reconciliation = live.states[uuid];
  const state: GpuState = reading ? gpuStateOnPage(reading, online, live.bookings, reconciliation, nowMs) : "offline";
  // The server's word where it has one ("free for me": lib/domain/gpu-availability.ts); until it arrives, every process counts as someone's.
  const use = reconciliation ? useFor(reconciliation, viewerId) : null;
  const others = use
    ? use.others.map((process) => ({ pid: process.pid, name: process.runner ? personName(process.runner) : (process.login ?? "unknown") }))
    : (reading?.processes ?? []).map((process) => ({ pid: process.pid, name: process.user ?? "unknown" }));
  const runners = [...new Set(others.map((other) => other.name))];
  const commands = others
    .map((other) => reading?.processes.find((process) => process.pid === other.pid)?.command ?? null)
    .filter((command): command is string => Boolean(command))
    .slice(0, 3);
  // The server's word where it has one; the same rule on the reading until it arrives.
  const unseenUse = reconciliation ? reconciliation.unseenUse : reading ? detectUnseenUse(reading) : null;
  const unseen = unseenUse ? unseenUsePhrase(reading?.memoryUsedMiB ?? unseenUse.memoryMiB) : null;
  const base = { state, taken, slurm, runners, commands, unseen };
  if (taken || slurm) return { ...base, kind: "taken" };
  if (!live.ready) return { ...base, kind: "unknown" };
  // A later window: what runs now says nothing about then; the bookings decide.
  if (!startsNow(window, nowMs)) return { ...base, kind: "free" };
  if (state === "offline" || state === "error") return { ...base, kind: state };
  if (use) return { ...base, kind: use.kind };
  // Before the server's attribution: unseen use and every listed process are someone else's.
  if (unseen) return { ...base, kind: "busy" };
  return { ...base, kind: (reading?.processes.length ?? 0) === 0 ? "free" : "busy" };
}

/**
 * The host dropdown's words: for a booking that starts now, the one rule's
 * counts ("1 of 8 free, 6 in use without a booking"); for a later window,
 * how many are not booked then.
 */
export function hostAvailability(host: BookableHost, live: LiveView, window: Window | null, nowMs: number): string {
  if (!live.ready) return `${host.gpus.length} GPU${host.gpus.length === 1 ? "" : "s"}`;
  if (!startsNow(window, nowMs) && window) {
    const free = host.gpus.filter((gpu) => !bookingInWindow(live.bookings, gpu, window.startMs, window.endMs) && !slurmBlockInWindow(live.slurm ?? [], gpu.uuid, window.startMs, window.endMs)).length;
    return `${free} of ${host.gpus.length} free then`;
  }
  const online = live.onlineHostIds.has(host.id);
  // Units: a partitioned GPU counts as its slices.
  const states = host.gpus.filter((gpu) => !gpu.partitioned).map((gpu) => {
    const reading = live.gpus[gpu.uuid];
    return reading ? gpuStateOnPage(reading, online, live.bookings, live.states[gpu.uuid], nowMs) : "offline";
  });
  return describeAvailability(countAvailability(states));
}

/**
 * The conflict notice's "free GPUs 0, 1, 2" for a booking that starts now:
 * only GPUs free by the one rule, never one with processes on it.
 */
export function freeSuggestions(indices: number[], host: BookableHost | null, live: LiveView, window: Window | null, nowMs: number): number[] {
  if (!host || !startsNow(window, nowMs)) return indices;
  const online = live.onlineHostIds.has(host.id);
  return indices.filter((index) => {
    const gpu = host.gpus.find((entry) => entry.index === index);
    const reading = gpu ? live.gpus[gpu.uuid] : undefined;
    return Boolean(gpu && reading && isGpuFree(gpuStateOnPage(reading, online, live.bookings, live.states[gpu.uuid], nowMs)));
  });
}
