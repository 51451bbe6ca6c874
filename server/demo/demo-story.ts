import { randomUUID } from "node:crypto";
import { freeSyntheticEmail } from "@/server/auth/synthetic-email";
import { SIMULATED_USERS } from "@/host/collector/simulated/models";
import { simulatedSnapshotAt, type SimulatedHostSpec } from "@/host/collector/simulated/simulated-source";
import { db } from "@/server/core/db";
import { log } from "@/server/core/log";
import type { Actor } from "@/server/access/actor";
import { createBooking } from "@/server/bookings/commands/create-booking";
import { readPolicy } from "@/server/bookings/rules/policy";
import { countCurrentDemoBookings } from "@/server/bookings/store/demo-bookings";
import { DEMO_IDLE_PURPOSE, DEMO_IDLE_SLICE_PURPOSE, stageIdleReleaseDemo } from "@/server/demo/demo-idle";

/**
 * What a newcomer sees on the simulated demo fleet: every GPU state at once.
 * The simulated processes run under the logins of SIMULATED_USERS; this
 * makes a demo account for each (marked simulated, no password: nobody can
 * sign in as one), so that processes, bookings and usage name one person,
 * and books for them:
 *
 * - sim-h100-a GPUs 0-3 for the owner of the training job there: in use by
 *   the booker, and a conflict on GPU 2 where another login squats;
 * - sim-h100-a GPU 7 for the owner of the process that holds it idle;
 * - sim-4090-a GPU 3 for someone else: booked and idle;
 * - on sim-h100-mig's split H100, slice 0:0 (3g.40gb) for the owner of the
 *   job there (in use by the booker) and slice 0:1 (2g.20gb) for someone
 *   else (booked, idle).
 *
 * GPUs 4-6 of sim-h100-a, the A100s and slice 0:2 of sim-h100-mig run work
 * without a booking; GPUs 1 and 2 of sim-4090-a and slice 0:3 stay free.
 */

export interface DemoAccount {
  id: string;
  username: string;
  name: string;
}

function titleCase(login: string): string {
  return login.charAt(0).toUpperCase() + login.slice(1);
}

/**
 * One account per simulated login. A login that already belongs to a real
 * person stays theirs and is left out of the map (no demo booking in their
 * name); a taken username gets a "-sim" suffix. Idempotent: run at every start.
 */
export async function ensureDemoAccounts(logins: readonly string[] = SIMULATED_USERS.map((user) => user.login)): Promise<Map<string, DemoAccount>> {
  const accounts = new Map<string, DemoAccount>();
  for (const login of logins) {
    const existing = await db().user.findUnique({ where: { unixLogin: login }, select: { id: true, username: true, name: true, simulated: true } });
    if (existing) {
      // A real person's login stays theirs, and the demo never books or writes in their name.
      if (existing.simulated) accounts.set(login, { id: existing.id, username: existing.username ?? existing.name, name: existing.name });
      continue;
    }
    const taken = await db().user.findUnique({ where: { username: login }, select: { id: true } });
    const username = taken ? `${login}-sim` : login;
    const created = await db().user.create({
      data: {
        id: randomUUID(),
        name: titleCase(login),
        username,
        displayUsername: username,
        email: await freeSyntheticEmail(username, "simulated"),
        unixLogin: login,
        simulated: true,
      },
      select: { id: true, username: true, name: true },
    });
    accounts.set(login, { id: created.id, username: created.username ?? username, name: created.name });
  }
  return accounts;
}

/** The login most processes on these GPUs run under: the owner of the job there. */
function ownerOf(spec: SimulatedHostSpec, seed: number | string, atMs: number, gpus: number[]): string | null {
  return ownerOn(spec, seed, atMs, new Set(spec.gpus.filter((gpu) => gpus.includes(gpu.index)).map((gpu) => gpu.uuid)));
}

/** The login most processes on these units (GPU or MIG UUIDs) run under. */
function ownerOn(spec: SimulatedHostSpec, seed: number | string, atMs: number, uuids: ReadonlySet<string>): string | null {
  const snapshot = simulatedSnapshotAt(spec, seed, atMs);
  const counts = new Map<string, number>();
  for (const process of snapshot.processes) {
    if (!uuids.has(process.gpuUuid) || !process.user) continue;
    counts.set(process.user, (counts.get(process.user) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

interface PlannedBooking {
  host: string;
  /** Whole GPUs by index, or MIG slices by "GPU:MIG device" (`slices`); one of the two. */
  gpus?: number[];
  slices?: string[];
  login: string;
  hours: number;
  purpose: string;
}

/** The bookings of the story, for the demo fleet as it runs at `simMs`; empty for any other fleet. */
export function planDemoBookings(specs: SimulatedHostSpec[], seed: number | string, simMs: number): PlannedBooking[] {
  const h100 = specs.find((spec) => spec.hostName === "sim-h100-a");
  const rtx = specs.find((spec) => spec.hostName === "sim-4090-a");
  if (!h100 || !rtx) return [];
  const plan: PlannedBooking[] = [];
  const training = h100.slots.find((slot) => slot.role === "training" && slot.squatterGpu !== null);
  // The squatter's GPU also runs the job's own rank: count the others, where only the owner runs.
  const squatter = training?.role === "training" ? training.squatterGpu : null;
  const trainer = training ? ownerOf(h100, seed, simMs, training.gpus.filter((index) => index !== squatter)) : null;
  if (training && trainer) plan.push({ host: h100.hostName, gpus: training.gpus, login: trainer, hours: 6, purpose: "demo: pre-training run" });
  const held = h100.slots.find((slot) => slot.role === "idle-held");
  const bookedBy = held ? ownerOf(h100, seed, simMs, held.gpus) : null;
  if (held && bookedBy) plan.push({ host: h100.hostName, gpus: held.gpus, login: bookedBy, hours: 8, purpose: DEMO_IDLE_PURPOSE });
  const idle = rtx.gpus.at(-1);
  const someoneElse = SIMULATED_USERS.map((user) => user.login).find((login) => login !== trainer && login !== bookedBy);
  if (idle && someoneElse) plan.push({ host: rtx.hostName, gpus: [idle.index], login: someoneElse, hours: 4, purpose: "demo: evaluation, not started yet" });
  plan.push(...planSliceBookings(specs, seed, simMs, plan.map((booking) => booking.login)));
  return plan;
}

/**
 * On the split H100: the 3g.40gb for the owner of its job, and the idle
 * 2g.20gb for a person who has no demo booking yet. The slice whose role
 * is a leak (a service nobody booked) and the other free one stay unbooked.
 */
function planSliceBookings(specs: SimulatedHostSpec[], seed: number | string, simMs: number, taken: string[]): PlannedBooking[] {
  const host = specs.find((spec) => spec.hostName === "sim-h100-mig");
  const gpu = host?.gpus.find((candidate) => candidate.mig);
  if (!host || !gpu?.mig) return [];
  const plan: PlannedBooking[] = [];
  const ref = (deviceIndex: number) => `${gpu.index}:${deviceIndex}`;
  const working = gpu.mig.find((slice) => slice.slot.role === "training");
  const owner = working ? ownerOn(host, seed, simMs, new Set([working.uuid])) : null;
  if (working && owner) plan.push({ host: host.hostName, slices: [ref(working.deviceIndex)], login: owner, hours: 6, purpose: "demo: fine-tuning on a MIG slice" });
  const idle = gpu.mig.find((slice) => slice.slot.role === "free");
  const logins = SIMULATED_USERS.map((user) => user.login);
  const other = logins.find((login) => login !== owner && !taken.includes(login)) ?? logins.find((login) => login !== owner);
  if (idle && other) plan.push({ host: host.hostName, slices: [ref(idle.deviceIndex)], login: other, hours: 4, purpose: DEMO_IDLE_SLICE_PURPOSE });
  return plan;
}

/**
 * Makes the demo accounts and, unless a demo booking is current already
 * (a restart), books the story. Errors are logged, never fatal: the demo
 * runs without its bookings rather than not at all.
 */
export async function startDemoStory(specs: SimulatedHostSpec[], seed: number | string, simTime: string | undefined, now = new Date()): Promise<void> {
  try {
    const accounts = await ensureDemoAccounts();
    const current = await countCurrentDemoBookings(now);
    if (current > 0) return;
    const policy = await readPolicy(db());
    const simMs = simTime ? Date.parse(simTime) : now.getTime();
    let made = 0;
    for (const booking of planDemoBookings(specs, seed, simMs)) {
      const account = accounts.get(booking.login);
      if (!account) continue;
      const actor: Actor = { ...account, role: "member", unixLogin: booking.login };
      const durationMinutes = Math.min(booking.hours * 60, policy.maxDurationMinutes);
      const units = booking.slices ? { slices: booking.slices } : { gpus: booking.gpus };
      await createBooking(actor, { host: booking.host, ...units, durationMinutes, purpose: booking.purpose }, { now });
      made += 1;
    }
    // Idle release shows at once: one booking in its warning period, one released earlier (server/demo/demo-idle.ts).
    const releasedFor = [...accounts.values()].at(-1);
    await stageIdleReleaseDemo(now, releasedFor ? { hostName: "sim-4090-a", gpuIndex: 1, userId: releasedFor.id } : null);
    log.info(`demo: ${accounts.size} simulated accounts, ${made} demo bookings`);
  } catch (error) {
    log.warn(`demo bookings not made: ${error instanceof Error ? error.message : String(error)}`);
  }
}
