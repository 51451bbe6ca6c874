import type { Limits, RoomView } from "@/lib/domain/team-schema";
import { db } from "@/server/core/db";
import { bookedRanges } from "@/server/bookings/rules/booked-ranges";
import { effectiveLimits } from "@/server/bookings/rules/check-limits";
import { countHeld, WEEK_MS } from "@/server/bookings/rules/gpu-hours";
import type { Actor } from "@/server/access/actor";
import { bookingTeam, teamsOf } from "@/server/bookings/rules/booking-team";

/**
 * The room a person has now, as the booking form shows it before submit:
 * the limits that apply (for the team named, else the accounting team),
 * GPUs held at once now, and the GPU-hours a booking starting now would
 * find counted (the same figures checkBookingLimits uses).
 */
export async function getRoom(actor: Actor, teamName: string | undefined, now = new Date()): Promise<RoomView> {
  const client = db();
  const nowMs = now.getTime();
  const [teams, team] = await Promise.all([teamsOf(client, actor.id), bookingTeam(client, actor.id, teamName)]);
  const scope = { userId: actor.id, username: actor.username, team };
  const inForce = await client.$transaction((tx) => effectiveLimits(tx, scope));
  const owner = (which: "team" | "person") => (which === "team" && team ? { teamId: team.id } : { userId: actor.id });

  // One count for both figures, over the week each way, as the booking transaction counts them.
  const counted = async (which: "team" | "person") => countHeld(await bookedRanges(client, owner(which), nowMs - WEEK_MS, nowMs + 2 * WEEK_MS), nowMs, nowMs + 60_000);
  const gpusNow: RoomView["gpusNow"] = inForce.maxGpus ? { used: (await counted(inForce.maxGpus.scope)).atOnce, limit: inForce.maxGpus.value } : null;
  const gpuHours7Days: RoomView["gpuHours7Days"] = inForce.gpuHoursPer7Days
    ? { used: Math.round((await counted(inForce.gpuHoursPer7Days.scope)).gpuHours7Days * 10) / 10, limit: inForce.gpuHoursPer7Days.value }
    : null;
  const limits: Limits = {
    maxGpus: inForce.maxGpus?.value ?? null,
    gpuHoursPer7Days: inForce.gpuHoursPer7Days?.value ?? null,
    maxBookingMinutes: inForce.maxBookingMinutes?.value ?? null,
    hosts: inForce.hosts?.value ?? null,
  };
  return {
    team,
    teams: teams.map(({ id, name, accounting }) => ({ id, name, accounting })),
    limits,
    sources: {
      maxGpus: inForce.maxGpus?.scope ?? null,
      gpuHoursPer7Days: inForce.gpuHoursPer7Days?.scope ?? null,
      maxBookingMinutes: inForce.maxBookingMinutes?.scope ?? null,
      hosts: inForce.hosts?.scope ?? null,
    },
    gpusNow,
    gpuHours7Days,
  };
}
