import { beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { passwordProblem, passwordSchema } from "@/lib/domain/password";
import { testDatabaseProvider, useTestDatabase } from "@/server/testing/test-db";

/**
 * Passwords (change, admin reset, the policy) and the audit log they write:
 * through better-auth against the test's own database.
 */

beforeAll(async () => {
  await useTestDatabase();
}, 120_000);

let unique = 0;
const name = (prefix: string) => `${prefix}${Date.now().toString(36)}${(unique += 1)}`;

/** Signs in over better-auth's HTTP handler, as a browser does (its hooks: the throttle, the audit of failures). */
async function signInResponse(username: string, password: string): Promise<Response> {
  const { auth } = await import("@/server/auth/better-auth");
  return auth().handler(
    new Request("http://gpudesk.test/api/auth/sign-in/username", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://gpudesk.test", host: "gpudesk.test", "x-gpudesk-client-ip": "192.0.2.7" },
      body: JSON.stringify({ username, password }),
    }),
  );
}

async function signInAs(username: string, password: string): Promise<boolean> {
  return (await signInResponse(username, password)).ok;
}

async function adminPrincipal() {
  const { createUser } = await import("@/server/auth/users");
  const admin = await createUser({ username: name("boss"), password: "boss-password-1", role: "admin" });
  return { kind: "user" as const, via: "session" as const, user: { id: admin.id, username: admin.username, name: admin.name, role: "admin" as const, unixLogin: admin.unixLogin } };
}

describe("the password policy", () => {
  it("refuses passwords of only control characters or spaces, in one place", () => {
    expect(passwordProblem("\u0000".repeat(12))).not.toBeNull();
    expect(passwordProblem("\t\n\r\u001b".repeat(3))).not.toBeNull();
    expect(passwordProblem(" ".repeat(12))).not.toBeNull();
    expect(passwordProblem("correct horse battery")).toBeNull();
    expect(passwordSchema.safeParse("\u0000".repeat(12)).success).toBe(false);
  });
});

describe("an admin's reset", () => {
  it("sets a temporary password, ends the person's sessions, and asks for their own at the next sign-in", async () => {
    const { createUser, updateUser } = await import("@/server/auth/users");
    const { listAudit } = await import("@/server/access/audit-log");
    const { db } = await import("@/server/core/db");
    const boss = await adminPrincipal();
    const person = await createUser({ username: name("reset"), password: "first-password-1" });
    expect(await signInAs(person.username, "first-password-1")).toBe(true);
    expect(await db().session.count({ where: { userId: person.id } })).toBe(1);

    // PATCH /api/v1/users/:id with a password, as the OpenAPI document says.
    await updateUser(person.id, { password: "temporary-pass-1" }, boss);
    expect(await db().session.count({ where: { userId: person.id } })).toBe(0);
    expect((await db().user.findUniqueOrThrow({ where: { id: person.id }, select: { mustChangePassword: true } })).mustChangePassword).toBe(true);
    expect(await signInAs(person.username, "first-password-1")).toBe(false);
    expect(await signInAs(person.username, "temporary-pass-1")).toBe(true);

    const log = await listAudit(boss.user, { limit: 10, kind: "user", person: person.username });
    expect(log.entries.map((entry) => entry.action)).toContain("user.password_reset");
    expect(log.entries.find((entry) => entry.action === "user.password_reset")).toMatchObject({ actor: { id: boss.user.id }, entityId: person.id, after: { mustChange: true } });
    // The failed sign-in with the old password is there too, by the username tried.
    const signIns = await listAudit(boss.user, { limit: 10, kind: "signin", person: person.username });
    expect(signIns.entries.find((entry) => entry.action === "signin.failure")).toMatchObject({ actor: null, ip: "192.0.2.7", after: { username: person.username } });
  });

  it("refuses a control-character password and mustChangePassword without a password", async () => {
    const { createUser, updateUser } = await import("@/server/auth/users");
    const boss = await adminPrincipal();
    const person = await createUser({ username: name("refuse"), password: "first-password-1" });
    await expect(updateUser(person.id, { password: "\u0000".repeat(16) }, boss)).rejects.toMatchObject({ issues: [expect.objectContaining({ path: ["password"] })] });
    await expect(updateUser(person.id, { mustChangePassword: false }, boss)).rejects.toMatchObject({ issues: [expect.objectContaining({ path: ["mustChangePassword"] })] });
  });
});

/** A browser's session cookie after signing in over better-auth's handler. */
async function sessionCookie(username: string, password: string): Promise<string> {
  const response = await signInResponse(username, password);
  expect(response.status).toBe(200);
  return response.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ");
}

describe("changing one's own password", () => {
  it("counts wrong current passwords against the sign-in throttle and audits each one", async () => {
    const { createUser } = await import("@/server/auth/users");
    const { changeOwnPassword } = await import("@/server/auth/passwords");
    const { db } = await import("@/server/core/db");
    const person = await createUser({ username: name("guessed"), password: "the-real-password" });
    const headers = new Headers({ cookie: await sessionCookie(person.username, "the-real-password"), host: "gpudesk.test", origin: "http://gpudesk.test" });
    const principal = { kind: "user" as const, via: "session" as const, user: { id: person.id, username: person.username, name: person.name, role: "member" as const, unixLogin: person.unixLogin } };
    // The throttle's clock stands still: the waits it imposes, not the machine's speed, decide.
    vi.useFakeTimers({ toFake: ["Date"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const codes: string[] = [];
    for (let guess = 0; guess < 7; guess++) {
      codes.push(await changeOwnPassword(principal, headers, { currentPassword: `guess-number-${guess}`, newPassword: "a-new-password-1" }).then(
        () => "changed",
        (error: { code?: string }) => error.code ?? "?",
      ));
    }
    expect(codes.slice(0, 5)).toEqual(["forbidden", "forbidden", "forbidden", "forbidden", "forbidden"]);
    expect(codes.slice(5)).toEqual(["rate_limited", "rate_limited"]);
    // Even the right one waits now, as at the sign-in.
    await expect(changeOwnPassword(principal, headers, { currentPassword: "the-real-password", newPassword: "a-new-password-1" })).rejects.toMatchObject({ code: "rate_limited" });
    const refused = await db().auditLog.findMany({ where: { action: "user.password_change_refused", entityId: person.id }, select: { actorId: true, after: true } });
    expect(refused.map((row) => JSON.parse(row.after ?? "{}").reason)).toEqual([...Array(5).fill("wrong_current_password"), "throttled", "throttled", "throttled"]);
    expect(refused.every((row) => row.actorId === person.id)).toBe(true);
  });

  it("gives the person's calendar feed a new address; the old one answers not found", async () => {
    const { createUser, updateUser } = await import("@/server/auth/users");
    const { changeOwnPassword } = await import("@/server/auth/passwords");
    const { listCalendarFeeds, renderCalendarFeed } = await import("@/server/calendar/calendar-feed");
    const person = await createUser({ username: name("feed"), password: "feed-password-1" });
    const actor = { id: person.id, role: "member" as const, username: person.username, name: person.name };
    const secretOf = async () => (await listCalendarFeeds(actor as never)).mine.replace("/api/v1/calendar/", "").replace(/\.ics$/, "");
    const before = await secretOf();
    expect(await renderCalendarFeed(before)).toContain("BEGIN:VCALENDAR");
    const headers = new Headers({ cookie: await sessionCookie(person.username, "feed-password-1"), host: "gpudesk.test", origin: "http://gpudesk.test" });
    const principal = { kind: "user" as const, via: "session" as const, user: { id: person.id, username: person.username, name: person.name, role: "member" as const, unixLogin: person.unixLogin } };
    await changeOwnPassword(principal, headers, { currentPassword: "feed-password-1", newPassword: "feed-password-2" });
    await expect(renderCalendarFeed(before)).rejects.toMatchObject({ code: "not_found" });
    const after = await secretOf();
    expect(after).not.toBe(before);
    expect(await renderCalendarFeed(after)).toContain("BEGIN:VCALENDAR");
    // An admin's reset too.
    await updateUser(person.id, { password: "reset-password-1" }, await adminPrincipal());
    await expect(renderCalendarFeed(after)).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("the audit log", () => {
  it("records role and Unix login changes with before and after, and filters by kind and time", async () => {
    const { createUser, updateUser } = await import("@/server/auth/users");
    const { listAudit } = await import("@/server/access/audit-log");
    const { withAuditOrigin } = await import("@/server/core/audit-context");
    const boss = await adminPrincipal();
    const person = await createUser({ username: name("audited"), password: "first-password-1" });
    const before = new Date();
    await withAuditOrigin({ ip: "10.1.2.3", via: "web" }, () => updateUser(person.id, { role: "admin", unixLogin: name("login") }, boss));

    const page = await listAudit(boss.user, { limit: 10, kind: "user", person: person.username, since: before.toISOString() });
    const role = page.entries.find((entry) => entry.action === "user.role");
    expect(role).toMatchObject({ before: { role: "member" }, after: { role: "admin" }, ip: "10.1.2.3", via: "web", actor: { id: boss.user.id } });
    expect(page.entries.some((entry) => entry.action === "user.unix_login")).toBe(true);
    expect((await listAudit(boss.user, { limit: 10, kind: "token", person: person.username, since: before.toISOString() })).entries).toEqual([]);
    expect((await listAudit(boss.user, { limit: 10, kind: "user", person: person.username, until: before.toISOString() })).entries.some((entry) => entry.action === "user.role")).toBe(false);
  });

  it("is append-only: the database refuses to change or remove an entry", async () => {
    const { db } = await import("@/server/core/db");
    const { recordAudit } = await import("@/server/access/audit-log");
    await recordAudit({ actorId: null, action: "host.register", entityType: "host", entityId: name("host"), after: { name: "x" } });
    const entry = await db().auditLog.findFirstOrThrow({ where: { action: "host.register" }, orderBy: { at: "desc" }, select: { id: true } });
    // The trigger's message reaches PostgreSQL's callers; SQLite's driver names it a constraint violation.
    await expect(db().auditLog.update({ where: { id: entry.id }, data: { action: "host.remove" } })).rejects.toThrow();
    await expect(db().auditLog.delete({ where: { id: entry.id } })).rejects.toThrow();
    expect(await db().auditLog.findUnique({ where: { id: entry.id }, select: { action: true } })).toEqual({ action: "host.register" });
    // PostgreSQL's TRUNCATE skips row triggers: a statement trigger refuses it. (SQLite has no TRUNCATE: its DELETE runs the row trigger.)
    const truncate = testDatabaseProvider() === "postgresql" ? db().$executeRawUnsafe('TRUNCATE "AuditLog"') : db().$executeRawUnsafe('DELETE FROM "AuditLog"');
    await expect(truncate).rejects.toThrow();
    expect(await db().auditLog.count()).toBeGreaterThan(0);
  });

  it("keeps the accounts it names: deleting one is refused (gpudesk disables accounts, never deletes them)", async () => {
    const { db } = await import("@/server/core/db");
    const boss = await adminPrincipal();
    const { createUser, updateUser } = await import("@/server/auth/users");
    const person = await createUser({ username: name("kept"), password: "kept-password-1" });
    await updateUser(person.id, { name: "Kept Person" }, boss);
    await expect(db().user.delete({ where: { id: boss.user.id } })).rejects.toThrow();
    expect(await db().auditLog.count({ where: { actorId: boss.user.id } })).toBeGreaterThan(0);
    expect(await db().user.count({ where: { id: boss.user.id } })).toBe(1);
  });
});
