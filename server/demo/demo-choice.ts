import type { DemoChoice, DemoEnded, DemoStatus } from "@/lib/domain/demo-choice";
import type { Actor } from "@/server/access/actor";
import { writeAudit } from "@/server/access/audit-log";
import { endDemoBookings } from "@/server/bookings/commands/end-demo-bookings";
import { announceBookingsChanged } from "@/server/bookings/store/booking-events";
import { disconnectLivePrincipal } from "@/server/access/live-revocation";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import { can } from "@/server/access/permissions";

const POLICY_ID = "default";
const DEMO_ENDED_REASON = "The demo ended: this server runs as the lab now";

/** The stored choice (null until someone chose). */
export async function readDemoChoice(): Promise<{ choice: DemoChoice | null; chosenAt: Date | null }> {
  const row = await db().policy.findUnique({ where: { id: POLICY_ID }, select: { demoChoice: true, demoChoiceAt: true } });
  const choice = row?.demoChoice === "demo" || row?.demoChoice === "lab" ? row.demoChoice : null;
  return { choice, chosenAt: choice ? (row?.demoChoiceAt ?? null) : null };
}

/** Whether the simulated fleet may run: not once the lab was chosen (a restart keeps it so). */
export async function demoEnded(): Promise<boolean> {
  return (await readDemoChoice()).choice === "lab";
}

/**
 * Where the server stands, for the page's question: it asks an admin while
 * nobody has chosen and the simulated fleet is registered here.
 * `askUnlessKept`: false where the operator settled it beforehand
 * (GPUDESK_DEMO=keep, a demo server that is never asked).
 */
export async function getDemoStatus(viewer: { role: string }, askUnlessKept = true): Promise<DemoStatus> {
  const { choice, chosenAt } = await readDemoChoice();
  const [simulatedHosts, realHosts] = await Promise.all([db().host.count({ where: { simulated: true } }), db().host.count({ where: { simulated: false, lastSeenAt: { not: null } } })]);
  const simulatedNow = choice === "lab" ? 0 : simulatedHosts;
  return {
    choice,
    chosenAt: chosenAt?.toISOString() ?? null,
    simulatedHosts: simulatedNow,
    realHosts,
    ask: askUnlessKept && can.administer(viewer) && choice === null && simulatedNow > 0,
  };
}

/**
 * The first admin's answer. "demo" only records it (the question is not
 * asked again). "lab" ends the demo in one transaction: the demo people are
 * retired (disabled, their Unix login cleared so that no process on a real
 * host is theirs; their rows stay, so past usage keeps their names), the
 * demo's bookings end and its alerts close, each audited; nothing of a real
 * person or a real host is touched. The running server stops its simulated
 * fleet when it sees the choice (server/demo/watch-demo-choice.ts).
 * `actor` null: the command line (`gpudesk demo off`).
 */
export async function chooseDemoOrLab(actor: Actor | null, choice: DemoChoice, now = new Date()): Promise<{ choice: DemoChoice; ended: DemoEnded | null }> {
  if (actor && !can.administer(actor)) throw new AppError("forbidden", "Only an admin chooses between the demo and the lab");
  const result = await db().$transaction(async (tx) => {
    const stored = await tx.policy.findUnique({ where: { id: POLICY_ID }, select: { demoChoice: true } });
    if (stored?.demoChoice === "lab") {
      throw new AppError("conflict", choice === "lab" ? "The demo has already ended on this server" : "This server was made the lab; the demo cannot come back");
    }
    const chosen = { demoChoice: choice, demoChoiceAt: now, demoChoiceById: actor?.id ?? null };
    await tx.policy.upsert({ where: { id: POLICY_ID }, create: { id: POLICY_ID, ...chosen }, update: chosen });
    if (choice === "demo") {
      await writeAudit(tx, { actorId: actor?.id ?? null, action: "policy.demo_choice", entityType: "policy", entityId: POLICY_ID, before: { demoChoice: stored?.demoChoice ?? null }, after: { demoChoice: "demo" }, at: now });
      return { choice, ended: null, retiredIds: [] as string[] };
    }

    const people = await tx.user.findMany({ where: { simulated: true }, select: { id: true, username: true, name: true }, orderBy: { username: "asc" } });
    const hosts = await tx.host.findMany({ where: { simulated: true }, select: { id: true, gpus: { select: { uuid: true } } } });
    const peopleIds = people.map((person) => person.id);
    const hostIds = hosts.map((host) => host.id);
    const bookings = await endDemoBookings(tx, { peopleIds, hostIds }, { actorId: actor?.id ?? null, reason: DEMO_ENDED_REASON, now });
    const gpuUuids = hosts.flatMap((host) => host.gpus.map((gpu) => gpu.uuid));
    const alerts = await tx.alert.updateMany({
      where: { closedAt: null, OR: [{ hostId: { in: hostIds } }, { gpuUuid: { in: gpuUuids } }] },
      data: { closedAt: now },
    });
    for (const person of people) {
      await tx.user.update({ where: { id: person.id }, data: { banned: true, banReason: "a demo person: the demo ended", unixLogin: null } });
    }
    await tx.session.deleteMany({ where: { userId: { in: peopleIds } } });
    await tx.apiToken.deleteMany({ where: { userId: { in: peopleIds } } });
    const ended: DemoEnded = {
      retired: people.map((person) => person.username ?? person.name),
      bookingsEnded: bookings.ended,
      bookingsCancelled: bookings.cancelled,
      alertsClosed: alerts.count,
      simulatedHosts: hosts.length,
    };
    await writeAudit(tx, { actorId: actor?.id ?? null, action: "policy.demo_choice", entityType: "policy", entityId: POLICY_ID, before: { demoChoice: stored?.demoChoice ?? null }, after: { demoChoice: "lab", ...ended }, at: now });
    return { choice, ended, retiredIds: peopleIds };
  });
  if (result.ended) {
    for (const id of result.retiredIds) disconnectLivePrincipal({ kind: "user", id });
    // The feed and the user directory read again: the demo's bookings are gone and its logins own nothing.
    announceBookingsChanged({ kind: "rules", what: "demo-choice" });
  }
  return { choice: result.choice, ended: result.ended };
}
