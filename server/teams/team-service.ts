import { Prisma } from "@prisma/client";
import type { Limits, LimitsInput, TeamCreate, TeamMemberInput, TeamMemberView, TeamUpdate, TeamView } from "@/lib/domain/team-schema";
import { lockPerson } from "@/server/core/counted-write";
import { isUniqueViolation } from "@/server/core/unique-violation";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import { personSubject, readLimits, saveLimits, teamSubject } from "@/server/bookings/rules/limits-store";
import type { Actor } from "@/server/access/actor";
import { writeAudit } from "@/server/access/audit-log";
import { announceBookingsChanged } from "@/server/bookings/store/booking-events";
import { can } from "@/server/access/permissions";

/**
 * Teams, memberships and limits (admins change them; everyone may read
 * them, since the form shows the room left and the queue names teams).
 */

function requireAdmin(actor: Actor): void {
  if (!can.administer(actor)) throw new AppError("forbidden", "Only an admin can change teams and limits");
}

async function viewsOf(teamIds?: string[]): Promise<TeamView[]> {
  const teams = await db().team.findMany({
    where: teamIds ? { id: { in: teamIds } } : {},
    orderBy: { name: "asc" },
    select: { id: true, name: true, share: true, members: { select: { userId: true, lead: true, accounting: true }, orderBy: { createdAt: "asc" } } },
  });
  const userIds = [...new Set(teams.flatMap((team) => team.members.map((member) => member.userId)))];
  const [users, limits] = await Promise.all([
    db().user.findMany({ where: { id: { in: userIds } }, select: { id: true, username: true, name: true } }),
    readLimits(db(), [...teams.map((team) => teamSubject(team.id)), ...userIds.map(personSubject)]),
  ]);
  const byId = new Map(users.map((user) => [user.id, user]));
  const hasAny = (value: Limits | undefined) => value !== undefined && Object.values(value).some((v) => v !== null);
  return teams.map((team) => ({
    id: team.id,
    name: team.name,
    share: team.share,
    limits: limits.get(teamSubject(team.id)) as Limits,
    members: team.members.flatMap((member): TeamMemberView[] => {
      const user = byId.get(member.userId);
      if (!user) return [];
      const own = limits.get(personSubject(member.userId));
      return [{ userId: user.id, username: user.username, name: user.name, lead: member.lead, accounting: member.accounting, limits: hasAny(own) ? (own as Limits) : null }];
    }),
  }));
}

export async function listTeams(): Promise<TeamView[]> {
  return viewsOf();
}

export async function getTeam(id: string): Promise<TeamView> {
  const [team] = await viewsOf([id]);
  if (!team) throw new AppError("not_found", "No such team");
  return team;
}

export async function createTeam(actor: Actor, input: TeamCreate, now = new Date()): Promise<TeamView> {
  requireAdmin(actor);
  try {
    const id = await db().$transaction(async (tx) => {
      const team = await tx.team.create({ data: { name: input.name, share: input.share ?? 1 }, select: { id: true } });
      const limits = input.limits ? (await saveLimits(tx, teamSubject(team.id), input.limits)).after : null;
      await writeAudit(tx, { actorId: actor.id, action: "team.create", entityType: "team", entityId: team.id, after: { name: input.name, share: input.share ?? 1, limits }, at: now });
      return team.id;
    });
    return getTeam(id);
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("conflict", `There is already a team named ${input.name}`, { name: "That name is taken" });
    throw error;
  }
}

export async function updateTeam(actor: Actor, id: string, input: TeamUpdate, now = new Date()): Promise<TeamView> {
  requireAdmin(actor);
  try {
    await db().$transaction(async (tx) => {
      const before = await tx.team.findUnique({ where: { id }, select: { name: true, share: true } });
      if (!before) throw new AppError("not_found", "No such team");
      if (input.name !== undefined || input.share !== undefined) {
        await tx.team.update({ where: { id }, data: { ...(input.name !== undefined ? { name: input.name } : {}), ...(input.share !== undefined ? { share: input.share } : {}) } });
      }
      const limits = input.limits ? await saveLimits(tx, teamSubject(id), input.limits) : null;
      await writeAudit(tx, {
        actorId: actor.id,
        action: "team.update",
        entityType: "team",
        entityId: id,
        before: { ...before, ...(limits ? { limits: limits.before } : {}) },
        after: { name: input.name ?? before.name, share: input.share ?? before.share, ...(limits ? { limits: limits.after } : {}) },
        at: now,
      });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("conflict", `There is already a team named ${input.name}`, { name: "That name is taken" });
    throw error;
  }
  // The form's room and the queue's order follow the limits and shares.
  announceBookingsChanged({ kind: "rules", what: "teams" });
  return getTeam(id);
}

/** Deletes a team and its memberships; bookings made for it keep its id (their history stays), counted for no team from now on. */
export async function deleteTeam(actor: Actor, id: string, now = new Date()): Promise<void> {
  requireAdmin(actor);
  await db().$transaction(async (tx) => {
    const team = await tx.team.findUnique({ where: { id }, select: { name: true, share: true } });
    if (!team) throw new AppError("not_found", "No such team");
    await tx.bookingLimit.deleteMany({ where: { subject: teamSubject(id) } });
    await tx.team.delete({ where: { id } });
    await writeAudit(tx, { actorId: actor.id, action: "team.delete", entityType: "team", entityId: id, before: team, at: now });
  });
  announceBookingsChanged({ kind: "rules", what: "teams" });
}

/**
 * Adds a person to a team (or changes their lead / accounting flags there).
 * Each person has one accounting team: their first, or the one last marked so.
 */
export async function addTeamMember(actor: Actor, teamId: string, input: TeamMemberInput, now = new Date()): Promise<TeamView> {
  requireAdmin(actor);
  await db().$transaction(async (tx) => {
    const team = await tx.team.findUnique({ where: { id: teamId }, select: { id: true } });
    if (!team) throw new AppError("not_found", "No such team");
    const user = await tx.user.findUnique({ where: { username: input.username.toLowerCase() }, select: { id: true } });
    if (!user) throw new AppError("bad_request", `There is no person named ${input.username}`, { username: `There is no person named ${input.username}` });
    await putMembership(tx, teamId, user.id, input, actor.id, now);
  });
  return getTeam(teamId);
}

type Tx = Prisma.TransactionClient;

/** Makes or changes one membership; a person's first team becomes their accounting team. */
async function putMembership(tx: Tx, teamId: string, userId: string, input: Pick<TeamMemberInput, "lead" | "accounting">, actorId: string | null, now: Date): Promise<void> {
  // One accounting team per person: changes of one person's memberships take turns, so two first teams at once make one accounting team.
  await lockPerson(tx, userId);
  const accountingElsewhere = await tx.teamMember.count({ where: { userId, accounting: true, teamId: { not: teamId } } });
  const accounting = input.accounting ?? accountingElsewhere === 0;
  if (accounting) await tx.teamMember.updateMany({ where: { userId, teamId: { not: teamId } }, data: { accounting: false } });
  const existing = await tx.teamMember.findUnique({ where: { teamId_userId: { teamId, userId } }, select: { lead: true, accounting: true } });
  const data = { lead: input.lead ?? existing?.lead ?? false, accounting: input.accounting ?? existing?.accounting ?? accounting };
  await tx.teamMember.upsert({ where: { teamId_userId: { teamId, userId } }, create: { teamId, userId, ...data }, update: data });
  await writeAudit(tx, { actorId, action: "team.member.add", entityType: "team", entityId: teamId, before: existing, after: { userId, ...data }, at: now });
}

/** Ends one membership; when it was the accounting team, the person's next team (the oldest membership) takes that role. */
async function dropMembership(tx: Tx, teamId: string, userId: string, actorId: string | null, now: Date): Promise<void> {
  await lockPerson(tx, userId);
  const member = await tx.teamMember.findUnique({ where: { teamId_userId: { teamId, userId } }, select: { lead: true, accounting: true } });
  if (!member) throw new AppError("not_found", "No such member of this team");
  await tx.teamMember.delete({ where: { teamId_userId: { teamId, userId } } });
  if (member.accounting) {
    const next = await tx.teamMember.findFirst({ where: { userId }, orderBy: { createdAt: "asc" }, select: { teamId: true } });
    if (next) await tx.teamMember.update({ where: { teamId_userId: { teamId: next.teamId, userId } }, data: { accounting: true } });
  }
  await writeAudit(tx, { actorId, action: "team.member.remove", entityType: "team", entityId: teamId, before: { userId, ...member }, at: now });
}

export async function removeTeamMember(actor: Actor, teamId: string, userId: string, now = new Date()): Promise<TeamView> {
  requireAdmin(actor);
  await db().$transaction((tx) => dropMembership(tx, teamId, userId, actor.id, now));
  return getTeam(teamId);
}

/**
 * A directory sign-in (OIDC or LDAP) puts the person in the teams their
 * groups name and takes them out of the directory-managed teams they no
 * longer belong to; teams the directory does not name are the admins' and
 * stay as they are. A named team that does not exist yet is left alone
 * (admins create teams). Audited as gpudesk's own change.
 */
export async function syncDirectoryTeams(userId: string, managed: readonly string[], held: readonly string[], now = new Date()): Promise<{ added: string[]; removed: string[] }> {
  const lower = (names: readonly string[]) => new Set(names.map((name) => name.trim().toLowerCase()));
  const managedNames = lower(managed);
  const heldNames = lower(held);
  const changed = await db().$transaction(async (tx) => {
    const teams = (await tx.team.findMany({ select: { id: true, name: true } })).filter((team) => managedNames.has(team.name.toLowerCase()));
    const memberOf = new Set((await tx.teamMember.findMany({ where: { userId, teamId: { in: teams.map((team) => team.id) } }, select: { teamId: true } })).map((row) => row.teamId));
    const added: string[] = [];
    const removed: string[] = [];
    for (const team of teams) {
      const shouldBe = heldNames.has(team.name.toLowerCase());
      if (shouldBe && !memberOf.has(team.id)) {
        await putMembership(tx, team.id, userId, {}, null, now);
        added.push(team.name);
      } else if (!shouldBe && memberOf.has(team.id)) {
        await dropMembership(tx, team.id, userId, null, now);
        removed.push(team.name);
      }
    }
    return { added, removed };
  });
  if (changed.added.length + changed.removed.length > 0) announceBookingsChanged({ kind: "rules", what: "teams" });
  return changed;
}

/** A person's own limits (they override the team's for them). */
export async function setPersonLimits(actor: Actor, userId: string, input: LimitsInput, now = new Date()): Promise<Limits> {
  requireAdmin(actor);
  const limits = await db().$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id: userId }, select: { id: true } });
    if (!user) throw new AppError("not_found", "No such person");
    const saved = await saveLimits(tx, personSubject(userId), input);
    await writeAudit(tx, { actorId: actor.id, action: "limits.update", entityType: "user", entityId: userId, before: saved.before, after: saved.after, at: now });
    return saved.after;
  });
  announceBookingsChanged({ kind: "rules", what: "limits" });
  return limits;
}

/** The teams whose lead this person is. */
export async function teamsLedBy(userId: string): Promise<string[]> {
  const rows = await db().teamMember.findMany({ where: { userId, lead: true }, select: { teamId: true } });
  return rows.map((row) => row.teamId);
}
