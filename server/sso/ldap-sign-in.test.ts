// Single sign-on plugged into sign-in, as the server does at start (server/main/sign-in.ts).
import "@/server/testing/plug-sign-in";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { authRouteCall, sessionUserOf } from "@/server/testing/auth-route";
import { type Slapd, slapdInstalled, startSlapd } from "@/server/testing/slapd";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The password form's sign-in (/api/auth/sign-in/username through the route
 * handler) with LDAP configured, against a real slapd started here.
 */

let slapd: Slapd;
let route: typeof import("@/app/api/auth/[...all]/route");
const signIn = (username: string, password: string) => authRouteCall(route, "/sign-in/username", { body: { username, password } });
const sessionUser = (response: Response) => sessionUserOf(route, response);

beforeAll(async () => {
  if (!slapdInstalled()) throw new Error("slapd is not installed: apt-get install -y slapd ldap-utils (as .ci/run does)");
  slapd = await startSlapd([
    { uid: "ada", cn: "Ada Lovelace", password: "ada-directory-pw", groups: ["gpu-admins"] },
    { uid: "ckrause", cn: "Carol Krause", password: "carol-directory-pw", groups: ["students", "vision-lab"], mail: "carol@lab.example" },
    { uid: "guess", cn: "Guessed At", password: "guess-directory-pw", groups: [] },
    { uid: "lina", cn: "Lina Locked", password: "lina-directory-pw", groups: [] },
    { uid: "lena", cn: "Lena Linked", password: "lena-directory-pw", groups: [] },
  ]);
  Object.assign(process.env, slapd.env, { GPUDESK_SSO_ADMIN_GROUPS: "gpu-admins", GPUDESK_SSO_TEAM_GROUPS: "vision-lab=vision" });
  await useTestDatabase();
  route = await import("@/app/api/auth/[...all]/route");
});

afterAll(async () => {
  await slapd?.stop();
});

describe("LDAP sign-in through the password form", () => {
  it("a directory password signs in: the account is made with the role from the groups and the Unix login from uid", async () => {
    const response = await signIn("carol", "carol-directory-pw");
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).not.toHaveProperty("token");
    expect(await sessionUser(response)).toMatchObject({ username: "carol", name: "Carol Krause", role: "member", unixLogin: "ckrause" });
    expect(await sessionUser(await signIn("ada", "ada-directory-pw"))).toMatchObject({ username: "ada", role: "admin", unixLogin: "ada" });
  });

  it("the directory decides for the people it knows: a local password of the same name does not sign in; the directory takes the account only once an admin linked it", async () => {
    const { createUser, updateUser } = await import("@/server/auth/users");
    const { db } = await import("@/server/core/db");
    await db().user.delete({ where: { username: "ada" } });
    const created = await createUser({ username: "ada", password: "ada-local-password", role: "admin" });
    expect((await signIn("ada", "ada-local-password")).status).toBe(401);
    const unlinked = await signIn("ada", "ada-directory-pw");
    expect(unlinked.status).toBe(401);
    expect(await sessionUser(unlinked)).toBeNull();
    const refused = await db().auditLog.findFirst({ where: { action: "signin.failure", entityId: "ada" }, orderBy: { at: "desc" }, select: { after: true } });
    expect(JSON.parse(refused?.after ?? "{}")).toMatchObject({ source: "ldap", reason: "not_linked" });

    const actor = { kind: "user" as const, via: "session" as const, user: { id: created.id, username: "ada", name: "ada", role: "admin" as const, unixLogin: "ada" } };
    await updateUser(created.id, { directoryLink: true }, actor);
    const user = await sessionUser(await signIn("ada", "ada-directory-pw"));
    expect(user?.id).toBe(created.id);
    const bound = await db().account.findFirstOrThrow({ where: { userId: created.id, providerId: "ldap" }, select: { accountId: true } });
    expect(bound.accountId).toMatch(/^entryUUID:[0-9a-f-]{36}$/);
  });

  it("people the directory does not know still sign in with gpudesk's own password", async () => {
    const { createUser } = await import("@/server/auth/users");
    await createUser({ username: "localonly", password: "local-only-password" });
    expect((await signIn("localonly", "local-only-password")).status).toBe(200);
    expect((await signIn("localonly", "wrong-password-here")).status).toBe(401);
  });

  it("wrong directory passwords go through the same per-username throttle as local ones", async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 7; attempt++) statuses.push((await signIn("guess", `wrong-${attempt}-password`)).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toContain(429);
    // Even the right password waits now.
    expect((await signIn("guess", "guess-directory-pw")).status).toBe(429);
  });

  it("every spelling slapd takes for a name counts against that name's throttle and never reaches the directory once it is locked", async () => {
    // The throttle's clock stands still: its wait, not the machine's speed, decides.
    vi.useFakeTimers({ toFake: ["Date"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    for (let attempt = 0; attempt < 5; attempt++) expect((await signIn("lina", `wrong-${attempt}-password`)).status).toBe(401);
    const spellings = ["LINA", "Lina", " lina ", "ｌｉｎａ", "𝐥𝐢𝐧𝐚", "ℓina", "𝓁𝒾𝓃𝒶", "ＬＩＮＡ"];
    for (const spelling of spellings) {
      expect((await signIn(spelling, "lina-wrong-guess")).status).toBe(429);
      // The right password too: it is never checked, so the answer tells nothing.
      expect((await signIn(spelling, "lina-directory-pw")).status).toBe(429);
    }
  });

  it("one answer for every refusal, byte for byte: a wrong password (directory or local-only account), an unknown or invalid name, a right password the account may not take", async () => {
    const { createUser } = await import("@/server/auth/users");
    await createUser({ username: "lena", password: "lena-local-password" });
    // A local-only account (a break-glass admin) must not be told apart from a name no one has (issue 48, item 8).
    await createUser({ username: "breakglass", password: "breakglass-local-pw", role: "admin" });
    const answers = await Promise.all([
      signIn("lena", "not-lenas-password"),
      signIn("nobody-here", "whatever-password"),
      signIn("breakglass", "not-the-breakglass-pw"),
      signIn("ada", "not-adas-password"),
      signIn("lena\u200b", "lena-directory-pw"),
      signIn("le na", "lena-directory-pw"),
      // The directory's password is right, but no admin linked the local account of that name.
      signIn("ｌｅｎａ", "lena-directory-pw"),
    ]);
    // Status, headers (but the date) and the raw body: JSON's key order too.
    const seen = await Promise.all(
      answers.map(async (response) => ({ status: response.status, headers: [...response.headers].filter(([name]) => name !== "date"), body: await response.text() })),
    );
    for (const answer of seen) expect(answer).toEqual(seen[0]);
    expect(seen[0]).toMatchObject({ status: 401, body: '{"message":"Invalid username or password","code":"INVALID_USERNAME_OR_PASSWORD"}' });
  });

  it("groups put the person in their mapped teams, and out of a mapped team they left; a refused password is audited", async () => {
    const { db } = await import("@/server/core/db");
    const vision = await db().team.create({ data: { name: "vision" }, select: { id: true } });
    const carol = await db().user.findUniqueOrThrow({ where: { username: "carol" }, select: { id: true } });
    expect((await signIn("carol", "carol-directory-pw")).status).toBe(200);
    expect(await db().teamMember.findMany({ where: { userId: carol.id }, select: { teamId: true, accounting: true } })).toEqual([{ teamId: vision.id, accounting: true }]);
    expect((await db().auditLog.findFirstOrThrow({ where: { action: "team.member.add", entityId: vision.id }, select: { actorId: true } })).actorId).toBeNull();
    // Ada's groups do not name vision: an admin's hand-made membership there is the directory's to end.
    const ada = await db().user.findUniqueOrThrow({ where: { username: "ada" }, select: { id: true } });
    await db().teamMember.create({ data: { teamId: vision.id, userId: ada.id, accounting: true } });
    expect((await signIn("ada", "ada-directory-pw")).status).toBe(200);
    expect(await db().teamMember.count({ where: { userId: ada.id } })).toBe(0);

    expect((await signIn("carol", "not-carols-password")).status).toBe(401);
    const refused = await db().auditLog.findFirst({ where: { action: "signin.failure", entityId: "carol" }, select: { after: true } });
    expect(JSON.parse(refused?.after ?? "{}")).toMatchObject({ username: "carol", source: "ldap", reason: "wrong_password" });
  });

  it("a disabled account gets no session from a directory password", async () => {
    const { db } = await import("@/server/core/db");
    await db().user.update({ where: { username: "carol" }, data: { banned: true } });
    const response = await signIn("carol", "carol-directory-pw");
    expect(response.status).toBe(403);
    expect(response.headers.getSetCookie().some((line) => line.includes("session_token="))).toBe(false);
  });
});
