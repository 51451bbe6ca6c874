import type { Prisma, PrismaClient } from "@prisma/client";
import type { IdlePolicyValues } from "@/server/bookings/rules/policy";
import { idleStanding, type IdleBookingRow, type IdleExemptions, type IdleStanding } from "@/server/bookings/rules/idle-state";

type Client = PrismaClient | Prisma.TransactionClient;

const PHASE_ORDER = { none: 0, idle: 1, warning: 2, due: 3 } as const;

/**
 * A booking across nodes is idle only when every unit of every part is: its
 * standing is that of its least idle part (the lowest phase; among equals,
 * the one whose release comes last), given to every part. One part busy
 * keeps the whole booking; one part exempt exempts it.
 */
export function wholeBookingStanding(parts: readonly IdleStanding[]): Omit<IdleStanding, "reservationId"> {
  const weakest = [...parts].sort(
    (a, b) => PHASE_ORDER[a.phase] - PHASE_ORDER[b.phase] || (b.releaseAtMs ?? Number.POSITIVE_INFINITY) - (a.releaseAtMs ?? Number.POSITIVE_INFINITY),
  )[0];
  const { reservationId: _part, ...standing } = weakest;
  return { ...standing, exempt: parts.some((part) => part.exempt) };
}

/** Every standing, the parts of each booking across nodes replaced by their booking's (`groupOf`: part id → booking id). */
export function judgeWholeBookings(standings: Map<string, IdleStanding>, groupOf: ReadonlyMap<string, string>): Map<string, IdleStanding> {
  const groups = new Map<string, IdleStanding[]>();
  for (const [id, standing] of standings) {
    const group = groupOf.get(id);
    if (group) groups.set(group, [...(groups.get(group) ?? []), standing]);
  }
  const judged = new Map(standings);
  for (const parts of groups.values()) {
    const whole = wholeBookingStanding(parts);
    for (const part of parts) judged.set(part.reservationId, { ...whole, reservationId: part.reservationId });
  }
  return judged;
}

/**
 * The idle standing of each of `rows` as idle release acts on it: each
 * part of a booking across nodes judged with its booking (`rows` must hold
 * every part of such a booking). The one answer the leader's pass, the
 * bookings API, the live bookings and the CLI read, so that no node of
 * a booking says "released at … unless used" while its booking is not idle
 * (it did, re-dated every minute, for a part idle on its own).
 */
export async function bookingIdleStandings<Row extends IdleBookingRow & { groupId: string | null }>(
  client: Client,
  rows: readonly Row[],
  policy: IdlePolicyValues,
  exemptions: IdleExemptions,
  nowMs: number,
  options: { busyNow?: (row: Row) => boolean; minimumMinutes?: number } = {},
): Promise<Map<string, IdleStanding>> {
  const own = new Map<string, IdleStanding>();
  for (const row of rows) own.set(row.id, await idleStanding(client, row, policy, exemptions, nowMs, { busyNow: options.busyNow?.(row), minimumMinutes: options.minimumMinutes }));
  return judgeWholeBookings(own, new Map(rows.flatMap((row) => (row.groupId ? [[row.id, row.groupId] as const] : []))));
}
