import type { IdleExemptionInput, IdleExemptionsAnswer, IdleExemptionView } from "@/lib/domain/idle-exemption-schema";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import type { Actor } from "@/server/access/actor";
import { writeAudit } from "@/server/access/audit-log";
import { can } from "@/server/access/permissions";
import { readBookingPurposes } from "@/server/bookings/store/idle-columns";

function requireAdminActor(actor: Actor): void {
  if (!can.administer(actor)) throw new AppError("forbidden", "Only an admin can change idle release's exemptions");
}

/** The subject's id from what an admin types: a host's name, a person's username, a booking's id. */
async function resolveSubject(input: IdleExemptionInput): Promise<{ id: string; label: string }> {
  if (input.kind === "host") {
    const host = await db().host.findFirst({ where: { name: input.subject }, select: { id: true, name: true } });
    if (!host) throw new AppError("bad_request", `No host named ${input.subject}`, { subject: "No such host" });
    return { id: host.id, label: host.name };
  }
  if (input.kind === "person") {
    const person = await db().user.findUnique({ where: { username: input.subject.toLowerCase() }, select: { id: true, username: true } });
    if (!person) throw new AppError("bad_request", `No person with username ${input.subject}`, { subject: "No such person" });
    return { id: person.id, label: person.username ?? input.subject };
  }
  const [booking] = await readBookingPurposes([input.subject]);
  if (!booking) throw new AppError("bad_request", `No booking ${input.subject}`, { subject: "No such booking" });
  return { id: booking.id, label: booking.purpose };
}

export async function listIdleExemptions(actor: Actor): Promise<IdleExemptionsAnswer> {
  requireAdminActor(actor);
  const rows = await db().idleExemption.findMany({ orderBy: { createdAt: "asc" } });
  const [hosts, people, bookings] = await Promise.all([
    db().host.findMany({ where: { id: { in: rows.filter((row) => row.kind === "host").map((row) => row.subjectId) } }, select: { id: true, name: true } }),
    db().user.findMany({ where: { id: { in: rows.filter((row) => row.kind === "person").map((row) => row.subjectId) } }, select: { id: true, username: true } }),
    readBookingPurposes(rows.filter((row) => row.kind === "booking").map((row) => row.subjectId)),
  ]);
  const labels = new Map<string, string>([
    ...hosts.map((host) => [host.id, host.name] as [string, string]),
    ...people.map((person) => [person.id, person.username ?? person.id] as [string, string]),
    ...bookings.map((booking) => [booking.id, booking.purpose] as [string, string]),
  ]);
  const reported = await db().idleRelease.findMany({ where: { reportOnly: true }, orderBy: { at: "desc" }, take: 100 });
  const reportedPeople = await db().user.findMany({ where: { id: { in: reported.map((row) => row.userId) } }, select: { id: true, username: true } });
  const reportedHosts = await db().host.findMany({ where: { id: { in: reported.map((row) => row.hostId) } }, select: { id: true, name: true } });
  return {
    exemptions: rows.map((row) => ({
      id: row.id,
      kind: row.kind as IdleExemptionView["kind"],
      subjectId: row.subjectId,
      label: labels.get(row.subjectId) ?? "(gone)",
      reason: row.reason,
      createdAt: row.createdAt.toISOString(),
    })),
    wouldHaveReleased: reported.map((row) => ({
      reservationId: row.reservationId,
      userId: row.userId,
      username: reportedPeople.find((person) => person.id === row.userId)?.username ?? null,
      hostName: reportedHosts.find((host) => host.id === row.hostId)?.name ?? null,
      gpuCount: row.gpuCount,
      idleSince: row.idleSince.toISOString(),
      at: row.at.toISOString(),
      scheduledEndAt: row.scheduledEndAt.toISOString(),
    })),
  };
}

/** Exempts a host, a person or one booking from idle release (audited). */
export async function addIdleExemption(actor: Actor, input: IdleExemptionInput, now = new Date()): Promise<IdleExemptionView> {
  requireAdminActor(actor);
  const subject = await resolveSubject(input);
  const row = await db().$transaction(async (tx) => {
    const existing = await tx.idleExemption.findUnique({ where: { kind_subjectId: { kind: input.kind, subjectId: subject.id } } });
    if (existing) throw new AppError("conflict", `That ${input.kind} is exempt already`);
    const created = await tx.idleExemption.create({ data: { kind: input.kind, subjectId: subject.id, reason: input.reason || null, createdById: actor.id, createdAt: now } });
    await writeAudit(tx, { actorId: actor.id, action: "policy.idle_exemption_add", entityType: "policy", entityId: created.id, after: { kind: input.kind, subjectId: subject.id, label: subject.label, reason: input.reason ?? null }, at: now });
    return created;
  });
  return { id: row.id, kind: input.kind, subjectId: row.subjectId, label: subject.label, reason: row.reason, createdAt: row.createdAt.toISOString() };
}

export async function removeIdleExemption(actor: Actor, id: string, now = new Date()): Promise<void> {
  requireAdminActor(actor);
  await db().$transaction(async (tx) => {
    const row = await tx.idleExemption.findUnique({ where: { id } });
    if (!row) throw new AppError("not_found", "No such exemption");
    await tx.idleExemption.delete({ where: { id } });
    await writeAudit(tx, { actorId: actor.id, action: "policy.idle_exemption_remove", entityType: "policy", entityId: id, before: { kind: row.kind, subjectId: row.subjectId, reason: row.reason }, at: now });
  });
}
