import { gpuShareOf } from "@/lib/gpu-share";
import { db } from "@/server/db";
import { personSelect, toPerson } from "@/server/reservations/people";
import type { PersonRef } from "@/lib/reservation-types";

export interface HandedBackPerson {
  person: PersonRef | null;
  gpuHours: number;
  releases: number;
}

export interface HandedBack {
  gpuHours: number;
  releases: number;
  people: HandedBackPerson[];
}

/**
 * The GPU-hours idle release handed back in [fromMs, toMs): for each
 * release in range, its GPUs times the time from the release to the end the
 * booking had (report-only entries are not counted: nothing was handed back).
 * A MIG slice weighs its share of its GPU, as in every GPU-hour figure
 * (lib/gpu-share.ts); a release whose booking's units are no longer stored
 * counts its GPU count.
 */
export async function handedBackByIdleRelease(fromMs: number, toMs: number): Promise<HandedBack> {
  const rows = await db().idleRelease.findMany({
    where: { reportOnly: false, at: { gte: new Date(fromMs), lt: new Date(toMs) } },
    select: { reservationId: true, userId: true, gpuCount: true, at: true, scheduledEndAt: true },
  });
  const units = await db().reservationGpu.findMany({
    where: { reservationId: { in: [...new Set(rows.map((row) => row.reservationId))] } },
    select: { reservationId: true, gpu: { select: { migProfile: true, name: true } } },
  });
  const weightOf = new Map<string, number>();
  for (const unit of units) weightOf.set(unit.reservationId, (weightOf.get(unit.reservationId) ?? 0) + gpuShareOf(unit.gpu));
  const byPerson = new Map<string, { gpuHours: number; releases: number }>();
  for (const row of rows) {
    const gpus = weightOf.get(row.reservationId) ?? row.gpuCount;
    const hours = (gpus * Math.max(0, row.scheduledEndAt.getTime() - row.at.getTime())) / 3_600_000;
    const entry = byPerson.get(row.userId) ?? { gpuHours: 0, releases: 0 };
    entry.gpuHours += hours;
    entry.releases += 1;
    byPerson.set(row.userId, entry);
  }
  const people = await db().user.findMany({ where: { id: { in: [...byPerson.keys()] } }, select: personSelect });
  const list = [...byPerson].map(([userId, entry]) => {
    const person = people.find((candidate) => candidate.id === userId);
    return { person: person ? toPerson(person) : null, ...entry };
  });
  list.sort((a, b) => b.gpuHours - a.gpuHours);
  return { gpuHours: list.reduce((sum, entry) => sum + entry.gpuHours, 0), releases: rows.length, people: list };
}
