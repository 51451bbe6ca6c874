import { randomUUID } from "node:crypto";
import { db } from "@/server/core/db";
import type { Actor } from "@/server/access/actor";

/**
 * The permission matrix's table (server/auth/permission-matrix.test.ts):
 * every method of every app/api/v1 route, what it needs to run (ids of
 * things made fresh per call where the call changes them), and the exact
 * outcome for each kind of caller.
 */

export type Who = "anonymous" | "member" | "otherMember" | "admin" | "display" | "host" | "revoked" | "disabled";
export const WHO: Who[] = ["anonymous", "member", "otherMember", "admin", "display", "host", "revoked", "disabled"];

/** "ok" is any 2xx. */
export type Outcome = "ok" | 401 | 403 | 404;

/** What the table's calls work on; made once by the test's beforeAll. */
export interface MatrixWorld {
  /** Mia, the member whose things the others try to touch. */
  member: Actor;
  otherMember: Actor;
  admin: Actor;
  memberTokenId: string;
  /** A host with GPUs to book on, and one of its GPUs. */
  hostName: string;
  gpuUuid: string;
  /** A registered host that rotation and settings may change (not a caller's). */
  spareHostId: string;
}

export interface Action {
  /** "METHOD /api/v1/path/[param]", as the route file's path. */
  route: string;
  /** Set when one route is in the table more than once (e.g. with a query string). */
  variant?: string;
  query?: string;
  prepare?: (world: MatrixWorld) => Promise<{ params?: Record<string, string | string[]>; body?: unknown; query?: string }>;
  expect: Record<Who, Outcome>;
}

/** A signed-in person (session or personal token); a display token is refused with 403. */
const anyUser = { anonymous: 401, member: "ok", otherMember: "ok", admin: "ok", display: 403, host: 401, revoked: 401, disabled: 401 } as const;
/** Mia's own thing: another member learns nothing (404); an admin may. */
const owned = { ...anyUser, otherMember: 404 } as const;
const adminOnly = { ...anyUser, member: 403, otherMember: 403 } as const;
/** A personal webhook is its owner's alone: an admin manages the fleet-wide ones, not people's own. */
const personal = { ...owned, admin: 404 } as const;
/** The live fleet: a wall display may read it, in the display scope (the matrix checks what its answer holds). */
const viewer = { ...anyUser, display: "ok" } as const;
/** Public on purpose: it describes the API and holds nothing (GET /api/v1/openapi.json). */
const anyone = { anonymous: "ok", member: "ok", otherMember: "ok", admin: "ok", display: "ok", host: "ok", revoked: "ok", disabled: "ok" } as const;
/** No such route: the API's JSON 404 for every caller, signed in or not (app/api/v1/[...path]). */
const nobody = { anonymous: 404, member: 404, otherMember: 404, admin: 404, display: 404, host: 404, revoked: 404, disabled: 404 } as const;

let unique = 0;
const next = () => (unique += 1);

/**
 * A start of its own for each booking the table makes: 40 minutes apart from
 * an hour from now (a 30-minute booking extended by 5 still ends before the
 * next), so that hundreds of calls stay inside the policy's 14 days ahead.
 */
const slotStart = () => new Date(Date.now() + 3600_000 + next() * 40 * 60_000).toISOString();

/** A booking of Mia's on GPU 0, each in a slot of its own (so that many never hit her "GPUs at once" limit). */
async function miasBooking(world: MatrixWorld): Promise<string> {
  const { createBooking } = await import("@/server/bookings/commands/create-booking");
  const startsAt = slotStart();
  const booking = await createBooking(world.member, { host: world.hostName, gpus: [0], startsAt, durationMinutes: 30, purpose: "matrix" });
  return booking.id;
}

/** An active booking of Mia's, on a GPU of its own made for it (a keep needs a booking that runs now). */
async function miasActiveBooking(world: MatrixWorld): Promise<string> {
  const host = await db().host.findFirstOrThrow({ where: { name: world.hostName }, select: { id: true } });
  const gpu = await db().gpu.create({ data: { uuid: `GPU-matrix-${randomUUID()}`, hostId: host.id, index: 100 + next(), name: "matrix" }, select: { id: true } });
  const startsAt = new Date(Date.now() - 60_000);
  const endsAt = new Date(Date.now() + 3600_000);
  const booking = await db().reservation.create({
    data: { userId: world.member.id, hostId: host.id, startsAt, endsAt, purpose: "matrix", gpus: { create: [{ gpuId: gpu.id, startsAt, endsAt }] } },
    select: { id: true },
  });
  return booking.id;
}

/**
 * Node 2 of a booking of Mia's (later today) across two fresh hosts, and a third fresh
 * host with a free GPU of the same model to move it to (fresh per call).
 */
async function miasNodeToMove(world: MatrixWorld): Promise<{ params: { id: string }; body: { host: string } }> {
  const n = next();
  const hosts: { id: string; name: string; gpuId: string }[] = [];
  for (const name of [`mx-a-${n}`, `mx-b-${n}`, `mx-spare-${n}`]) {
    const host = await db().host.create({ data: { name }, select: { id: true, name: true } });
    const gpu = await db().gpu.create({ data: { uuid: `GPU-matrix-${randomUUID()}`, hostId: host.id, index: 0, name: "matrix" }, select: { id: true } });
    hosts.push({ ...host, gpuId: gpu.id });
  }
  // Later today: the spare hosts report nothing, and a move from now on would need them idle now.
  const startsAt = new Date(Date.now() + 2 * 3600_000);
  const endsAt = new Date(Date.now() + 3 * 3600_000);
  const part = (rank: number, groupId: string | null) =>
    db().reservation.create({
      data: { userId: world.member.id, hostId: hosts[rank].id, startsAt, endsAt, purpose: "matrix", groupId, nodeRank: rank, nodeCount: 2, gpus: { create: [{ gpuId: hosts[rank].gpuId, startsAt, endsAt }] } },
      select: { id: true },
    });
  const first = await part(0, null);
  await db().reservation.update({ where: { id: first.id }, data: { groupId: first.id } });
  const second = await part(1, first.id);
  return { params: { id: second.id }, body: { host: hosts[2].name } };
}

/** An idle-release exemption of a booking of Mia's (deleting one changes it: fresh per call). */
async function idleExemption(world: MatrixWorld): Promise<string> {
  const row = await db().idleExemption.create({ data: { kind: "booking", subjectId: await miasBooking(world) }, select: { id: true } });
  return row.id;
}

/** Mia's own webhook, written directly (its address need not pass the URL rules: nothing is sent to it in these calls but the test). */
async function miasWebhook(world: MatrixWorld): Promise<string> {
  const hook = await db().webhook.create({ data: { url: "http://127.0.0.1:9/matrix", format: "json", userId: world.member.id }, select: { id: true } });
  return hook.id;
}

/** A fleet-wide (admin) webhook. */
async function fleetWebhook(): Promise<string> {
  const hook = await db().webhook.create({ data: { url: "http://127.0.0.1:9/fleet", format: "json", userId: null }, select: { id: true } });
  return hook.id;
}

/** A waiting request of Mia's, written directly (past the two-per-person cap: the matrix leaves many behind). */
async function miasWaitingEntry(world: MatrixWorld): Promise<string> {
  const entry = await db().waitlistEntry.create({
    data: { userId: world.member.id, hostName: world.hostName, gpuCount: 1, durationMinutes: 30, purpose: "matrix", expiresAt: new Date(Date.now() + 3600_000) },
    select: { id: true },
  });
  return entry.id;
}

/** A team of nobody, fresh per call since deleting and changing it are the calls. */
async function aTeam(): Promise<string> {
  const team = await db().team.create({ data: { name: `matrix team ${randomUUID()}` }, select: { id: true } });
  return team.id;
}

/** An open alert about Mia (no booking involved), fresh per call since acknowledging changes it. */
async function alertAboutMia(world: MatrixWorld, kind: "unbooked_use" | "memory_pressure"): Promise<string> {
  const alert = await db().alert.create({
    data: { kind, subjectKey: `matrix:${randomUUID()}`, userIds: JSON.stringify([world.member.id]), message: "matrix", gpuUuid: world.gpuUuid },
    select: { id: true },
  });
  return alert.id;
}

export const ACTIONS: Action[] = [
  ...(["GET", "POST", "PUT", "PATCH", "DELETE"] as const).map((method) => ({ route: `${method} /api/v1/[...path]`, prepare: async () => ({ params: { path: ["no", "such"] } }), expect: nobody })),
  { route: "GET /api/v1/me", expect: anyUser },
  { route: "PATCH /api/v1/me", prepare: async () => ({ body: { timeZone: "Asia/Tokyo" } }), expect: anyUser },
  // Only with the current password (the matrix sends a wrong one: 403 for everyone signed in), and never with an API token.
  { route: "POST /api/v1/me/password", prepare: async () => ({ body: { currentPassword: "not-the-password", newPassword: "a-new-password-1" } }), expect: { ...anyUser, member: 403, otherMember: 403, admin: 403 } },
  { route: "GET /api/v1/me/notifications", expect: anyUser },
  { route: "PATCH /api/v1/me/notifications", prepare: async () => ({ body: { preferences: [{ event: "booking.ends_soon", onPage: true, byMail: false }] } }), expect: anyUser },
  { route: "GET /api/v1/openapi.json", expect: anyone },
  { route: "GET /api/v1/demo", expect: anyUser },
  // "demo" again changes nothing for an admin (the table never ends the demo: "lab" is once per server).
  { route: "POST /api/v1/demo", prepare: async () => ({ body: { choice: "demo" } }), expect: adminOnly },
  {
    route: "POST /api/v1/reservations/recurring",
    // A series of one, in an hour of its own, on the matrix host.
    prepare: async (world) => ({
      // On GPU 1: a daily series on GPU 0 would meet the slots of Mia's bookings.
      body: { booking: { host: world.hostName, gpus: [1], startsAt: new Date(Date.now() + (next() + 200) * 3600_000).toISOString(), durationMinutes: 30, purpose: "matrix series" }, weekdays: [0, 1, 2, 3, 4, 5, 6], weeks: 1, timeZone: "UTC" },
    }),
    expect: anyUser,
  },
  // The address is the key, whoever asks (a calendar app signs in as nobody); one that was not given out is not found.
  {
    route: "GET /api/v1/calendar/[feed]",
    variant: "Mia's feed",
    prepare: async (world) => {
      const { listCalendarFeeds } = await import("@/server/calendar/calendar-feed");
      return { params: { feed: (await listCalendarFeeds(world.member)).mine.split("/").pop()! } };
    },
    // A display token is refused as on every route but the live fleet's.
    expect: { ...anyone, display: 403 },
  },
  {
    route: "GET /api/v1/calendar/[feed]",
    variant: "a made-up address",
    prepare: async () => ({ params: { feed: `p-nobody.${"A".repeat(32)}.ics` } }),
    expect: { anonymous: 404, member: 404, otherMember: 404, admin: 404, display: 403, host: 404, revoked: 404, disabled: 404 },
  },
  { route: "GET /api/v1/fleet", expect: viewer },
  { route: "GET /api/v1/gpus/[uuid]/history", prepare: async (w) => ({ params: { uuid: w.gpuUuid } }), expect: anyUser },

  { route: "GET /api/v1/tokens", expect: anyUser },
  { route: "POST /api/v1/tokens", prepare: async () => ({ body: { label: "x" } }), expect: anyUser },
  // The owner's and the admin's revoke it (idempotent); another member learns nothing.
  { route: "DELETE /api/v1/tokens/[id]", prepare: async (w) => ({ params: { id: w.memberTokenId } }), expect: owned },

  { route: "GET /api/v1/users", expect: adminOnly },
  { route: "POST /api/v1/users", prepare: async () => ({ body: { username: `new${next()}`, password: "a-long-password" } }), expect: adminOnly },
  { route: "PATCH /api/v1/users/[id]", prepare: async (w) => ({ params: { id: w.otherMember.id }, body: { unixLogin: "otto" } }), expect: adminOnly },

  { route: "GET /api/v1/hosts", expect: adminOnly },
  { route: "POST /api/v1/hosts", prepare: async () => ({ body: { name: `n-${next()}` } }), expect: adminOnly },
  { route: "POST /api/v1/hosts/[id]/rotate", prepare: async (w) => ({ params: { id: w.spareHostId } }), expect: adminOnly },
  { route: "PATCH /api/v1/hosts/[id]", prepare: async (w) => ({ params: { id: w.spareHostId }, body: { fabricLabel: "rack-1" } }), expect: adminOnly },
  {
    route: "DELETE /api/v1/hosts/[id]",
    prepare: async () => {
      const { createHost } = await import("@/server/hosts/host-registry");
      return { params: { id: (await createHost(`gone-${next()}`)).host.id } };
    },
    expect: adminOnly,
  },
  { route: "GET /api/v1/host-settings", expect: adminOnly },
  {
    route: "PUT /api/v1/host-settings/[hostId]",
    variant: "switching enforcement on",
    prepare: async (w) => ({ params: { hostId: w.spareHostId }, body: { terminateIntruders: true, graceSeconds: 300, killAfterSeconds: 10 } }),
    expect: adminOnly,
  },

  { route: "GET /api/v1/displays", expect: adminOnly },
  { route: "POST /api/v1/displays", prepare: async () => ({ body: { name: `wall ${next()}` } }), expect: adminOnly },
  {
    route: "PATCH /api/v1/displays/[id]",
    prepare: async () => {
      const { createDisplay } = await import("@/server/auth/tokens");
      return { params: { id: (await createDisplay(`named wall ${next()}`)).display.id }, body: { namesUnbookedRunner: true } };
    },
    expect: adminOnly,
  },
  {
    route: "DELETE /api/v1/displays/[id]",
    prepare: async () => {
      const { createDisplay } = await import("@/server/auth/tokens");
      return { params: { id: (await createDisplay(`old wall ${next()}`)).display.id } };
    },
    expect: adminOnly,
  },

  { route: "GET /api/v1/policies", expect: anyUser },
  { route: "PUT /api/v1/policies", prepare: async () => ({ body: { maxDurationMinutes: 7 * 24 * 60, maxGpusPerUser: 8, maxAdvanceDays: 14 } }), expect: adminOnly },
  { route: "GET /api/v1/audit", expect: adminOnly },

  { route: "GET /api/v1/teams", expect: anyUser },
  { route: "POST /api/v1/teams", prepare: async () => ({ body: { name: `team ${next()}` } }), expect: adminOnly },
  { route: "PATCH /api/v1/teams/[id]", prepare: async () => ({ params: { id: await aTeam() }, body: { limits: { maxGpus: 4 } } }), expect: adminOnly },
  { route: "DELETE /api/v1/teams/[id]", prepare: async () => ({ params: { id: await aTeam() } }), expect: adminOnly },
  { route: "POST /api/v1/teams/[id]/members", prepare: async (w) => ({ params: { id: await aTeam() }, body: { username: w.otherMember.username } }), expect: adminOnly },
  {
    route: "DELETE /api/v1/teams/[id]/members/[userId]",
    prepare: async (w) => {
      const id = await aTeam();
      await db().teamMember.create({ data: { teamId: id, userId: w.otherMember.id } });
      return { params: { id, userId: w.otherMember.id } };
    },
    expect: adminOnly,
  },
  { route: "PUT /api/v1/users/[id]/limits", prepare: async (w) => ({ params: { id: w.otherMember.id }, body: { limits: { maxGpus: null } } }), expect: adminOnly },
  { route: "GET /api/v1/me/limits", expect: anyUser },

  { route: "GET /api/v1/reservations", expect: anyUser },
  { route: "GET /api/v1/reservations", variant: "everyone's (all=1)", query: "?all=1", expect: adminOnly },
  {
    route: "POST /api/v1/reservations",
    prepare: async (w) => ({ body: { host: w.hostName, count: 1, startsAt: slotStart(), durationMinutes: 30, purpose: "matrix" } }),
    expect: anyUser,
  },
  { route: "GET /api/v1/reservations/[id]", prepare: async (w) => ({ params: { id: await miasBooking(w) } }), expect: owned },
  {
    route: "PATCH /api/v1/reservations/[id]",
    variant: "extend",
    prepare: async (w) => ({ params: { id: await miasBooking(w) }, body: { addMinutes: 5 } }),
    // Only the booker extends; an admin may shorten or cancel.
    expect: { ...owned, admin: 403 },
  },
  {
    route: "PATCH /api/v1/reservations/[id]",
    variant: "shorten",
    // An admin who shortens must say why (the booker is told).
    prepare: async (w) => ({ params: { id: await miasBooking(w) }, body: { addMinutes: -5, reason: "matrix" } }),
    expect: owned,
  },
  { route: "POST /api/v1/reservations/[id]/release", prepare: async (w) => ({ params: { id: await miasBooking(w) } }), expect: owned },
  { route: "POST /api/v1/reservations/[id]/keep", prepare: async (w) => ({ params: { id: await miasActiveBooking(w) } }), expect: owned },
  { route: "POST /api/v1/reservations/[id]/replace-part", prepare: miasNodeToMove, expect: owned },
  { route: "GET /api/v1/reservations/[id]/spare", prepare: async (w) => ({ params: (await miasNodeToMove(w)).params }), expect: owned },
  { route: "GET /api/v1/idle-exemptions", expect: adminOnly },
  {
    route: "POST /api/v1/idle-exemptions",
    prepare: async (w) => ({ body: { kind: "booking", subject: await miasBooking(w), reason: "matrix" } }),
    expect: adminOnly,
  },
  { route: "DELETE /api/v1/idle-exemptions/[id]", prepare: async (w) => ({ params: { id: await idleExemption(w) } }), expect: adminOnly },
  {
    route: "POST /api/v1/reservations/[id]/cancel",
    prepare: async (w) => ({ params: { id: await miasBooking(w) }, body: { reason: "matrix" } }),
    expect: adminOnly,
  },

  { route: "GET /api/v1/waitlist", expect: anyUser },
  { route: "GET /api/v1/waitlist", variant: "mine (mine=1)", query: "?mine=1", expect: anyUser },
  {
    route: "POST /api/v1/waitlist",
    prepare: async (w) => ({ body: { host: w.hostName, count: 1, durationMinutes: 30, purpose: "matrix" } }),
    expect: anyUser,
  },
  { route: "GET /api/v1/waitlist/[id]", prepare: async (w) => ({ params: { id: await miasWaitingEntry(w) } }), expect: owned },
  { route: "DELETE /api/v1/waitlist/[id]", prepare: async (w) => ({ params: { id: await miasWaitingEntry(w) } }), expect: owned },

  { route: "GET /api/v1/usage", expect: anyUser },
  { route: "GET /api/v1/usage/export", expect: anyUser },
  // A team's usage: admins, and a team's lead (none of the matrix's members leads one).
  { route: "GET /api/v1/usage/teams", expect: adminOnly },
  { route: "GET /api/v1/usage/reservations", prepare: async (w) => ({ query: `?ids=${await miasBooking(w)}` }), expect: anyUser },

  { route: "GET /api/v1/alerts", expect: anyUser },
  { route: "GET /api/v1/alerts/summary", expect: anyUser },
  // Misuse (here Mia's use without a booking) is an admin's to acknowledge, not the person's it is about.
  {
    route: "POST /api/v1/alerts/[id]/acknowledge",
    prepare: async (w) => ({ params: { id: await alertAboutMia(w, "unbooked_use") } }),
    expect: { ...owned, member: 403 },
  },
  {
    route: "POST /api/v1/alerts/[id]/acknowledge",
    variant: "an alert that is not about misuse",
    prepare: async (w) => ({ params: { id: await alertAboutMia(w, "memory_pressure") } }),
    expect: owned,
  },

  { route: "GET /api/v1/webhooks", expect: anyUser },
  { route: "GET /api/v1/webhooks", variant: "the fleet-wide ones (scope=admin)", query: "?scope=admin", expect: adminOnly },
  { route: "POST /api/v1/webhooks", prepare: async () => ({ body: { url: "https://hooks.example.com/matrix", format: "json" } }), expect: anyUser },
  { route: "PATCH /api/v1/webhooks/[id]", prepare: async (w) => ({ params: { id: await miasWebhook(w) }, body: { enabled: false } }), expect: personal },
  {
    route: "PATCH /api/v1/webhooks/[id]",
    variant: "a fleet-wide one",
    prepare: async () => ({ params: { id: await fleetWebhook() }, body: { enabled: false } }),
    expect: { ...adminOnly, member: 404, otherMember: 404 },
  },
  { route: "DELETE /api/v1/webhooks/[id]", prepare: async (w) => ({ params: { id: await miasWebhook(w) } }), expect: personal },
  {
    route: "DELETE /api/v1/webhooks/[id]",
    variant: "a fleet-wide one",
    prepare: async () => ({ params: { id: await fleetWebhook() } }),
    expect: { ...adminOnly, member: 404, otherMember: 404 },
  },
  { route: "POST /api/v1/webhooks/[id]/test", prepare: async (w) => ({ params: { id: await miasWebhook(w) } }), expect: personal },
  { route: "GET /api/v1/webhook-deliveries", expect: anyUser },
];
