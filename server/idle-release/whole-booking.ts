import type { IdleStanding } from "@/server/bookings/rules/idle-state";

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
