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
 */
export async function handedBackByIdleRelease(fromMs: number, toMs: number): Promise<HandedBack> {
  const rows = await db().idleRelease.findMany({
    where: { reportOnly: false, at: { gte: new Date(fromMs), lt: new Date(toMs) } },
    select: { userId: true, gpuCount: true, at: true, scheduledEndAt: true },
  });
  const byPerson = new Map<string, { gpuHours: number; releases: number }>();
  for (const row of rows) {
    const hours = (row.gpuCount * Math.max(0, row.scheduledEndAt.getTime() - row.at.getTime())) / 3_600_000;
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
