import type { Prisma, PrismaClient } from "@prisma/client";
import { idleTimesConflict, type PolicyInput } from "@/lib/domain/booking-schema";
import type { PolicyView } from "@/lib/domain/booking-types";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import type { Actor } from "@/server/access/actor";
import { writeAudit } from "@/server/access/audit-log";
import { announceBookingsChanged } from "@/server/bookings/store/booking-events";
import { personSelect, toPerson } from "@/server/core/people";
import { can } from "@/server/access/permissions";

const POLICY_ID = "default";

export type PolicyValues = Pick<PolicyView, "maxDurationMinutes" | "maxGpusPerUser" | "maxAdvanceDays">;

/** The schema's defaults: a week per booking, 8 GPUs per person at once, 30 days ahead. */
export const DEFAULT_POLICY: PolicyValues = { maxDurationMinutes: 7 * 24 * 60, maxGpusPerUser: 8, maxAdvanceDays: 30 };

const valuesSelect = { maxDurationMinutes: true, maxGpusPerUser: true, maxAdvanceDays: true } as const;

/** Idle release's part of the policy (server/idle-release/ applies it). */
export type IdlePolicyValues = Pick<
  PolicyView,
  "idleReleaseAfterMinutes" | "idleWarningMinutes" | "idleBelowPct" | "idleKeepsPerBooking" | "idleReportOnly" | "idleOffAfterUpgrade"
>;

/** On for a new installation: released after 2 h idle, warned 30 min before, below 5 %, one keep. */
export const DEFAULT_IDLE_POLICY: IdlePolicyValues = {
  idleReleaseAfterMinutes: 120,
  idleWarningMinutes: 30,
  idleBelowPct: 5,
  idleKeepsPerBooking: 1,
  idleReportOnly: false,
  idleOffAfterUpgrade: false,
};

const idleSelect = {
  idleReleaseAfterMinutes: true,
  idleWarningMinutes: true,
  idleBelowPct: true,
  idleKeepsPerBooking: true,
  idleReportOnly: true,
  idleOffAfterUpgrade: true,
} as const;

type IdleRow = { [K in keyof typeof idleSelect]: K extends "idleReleaseAfterMinutes" ? number | null : IdlePolicyValues[K] };

function toIdleValues(row: IdleRow | null): IdlePolicyValues {
  if (!row) return DEFAULT_IDLE_POLICY;
  return { ...row, idleReleaseAfterMinutes: row.idleReleaseAfterMinutes ?? DEFAULT_IDLE_POLICY.idleReleaseAfterMinutes };
}

/** The idle-release rules in force; the defaults until an admin saves any. */
export async function readIdlePolicy(client: Prisma.TransactionClient | PrismaClient): Promise<IdlePolicyValues> {
  return toIdleValues(await client.policy.findUnique({ where: { id: POLICY_ID }, select: idleSelect }));
}

/** The policy in force, read inside a booking's transaction; the defaults until an admin saves one. */
export async function readPolicy(client: Prisma.TransactionClient | PrismaClient): Promise<PolicyValues> {
  return (await client.policy.findUnique({ where: { id: POLICY_ID }, select: valuesSelect })) ?? DEFAULT_POLICY;
}

export async function getPolicy(): Promise<PolicyView> {
  const row = await db().policy.findUnique({ where: { id: POLICY_ID }, select: { ...valuesSelect, ...idleSelect, updatedAt: true, updatedById: true } });
  if (!row) return { ...DEFAULT_POLICY, ...DEFAULT_IDLE_POLICY, updatedAt: null, updatedBy: null };
  const updatedBy = row.updatedById
    ? await db().user.findUnique({ where: { id: row.updatedById }, select: personSelect })
    : null;
  return {
    maxDurationMinutes: row.maxDurationMinutes,
    maxGpusPerUser: row.maxGpusPerUser,
    maxAdvanceDays: row.maxAdvanceDays,
    ...toIdleValues(row),
    updatedAt: row.updatedAt.toISOString(),
    updatedBy: updatedBy ? toPerson(updatedBy) : null,
  };
}

/**
 * Changes the booking rules (admins only). They apply to new bookings and
 * extensions; bookings already made stand.
 */
export async function updatePolicy(actor: Actor, input: PolicyInput, now = new Date()): Promise<PolicyView> {
  if (!can.administer(actor)) throw new AppError("forbidden", "Only an admin can change the booking rules");
  await db().$transaction(async (tx) => {
    const before = { ...(await readPolicy(tx)), ...(await readIdlePolicy(tx)) };
    // One of the two idle times changed alone can contradict the other as stored.
    const conflict = idleTimesConflict(input.idleReleaseAfterMinutes ?? before.idleReleaseAfterMinutes, input.idleWarningMinutes ?? before.idleWarningMinutes);
    if (conflict) throw new AppError("bad_request", conflict, { idleWarningMinutes: conflict });
    // Saving idle release's settings is the admin's choice: the upgrade's notice has done its work.
    const idleChosen = input.idleReleaseAfterMinutes !== undefined ? { idleOffAfterUpgrade: false } : {};
    await tx.policy.upsert({
      where: { id: POLICY_ID },
      create: { id: POLICY_ID, ...input, ...idleChosen, updatedById: actor.id },
      update: { ...input, ...idleChosen, updatedById: actor.id },
    });
    await writeAudit(tx, { actorId: actor.id, action: "policy.update", entityType: "policy", entityId: POLICY_ID, before, after: input, at: now });
  });
  // The form's limits and the schedule's horizon follow the policy.
  announceBookingsChanged({ kind: "rules", what: "policy" });
  return getPolicy();
}
