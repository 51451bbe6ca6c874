import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The simulated fleet's demo people (alice … frank) hold usernames and Unix
 * logins that real lab members have too. Adding the real person must work,
 * and take the name and login over; a real person's name stays taken.
 */

beforeAll(async () => {
  await useTestDatabase();
}, 120_000);

describe("a real person and the demo accounts", () => {
  it("takes the username and Unix login of a demo account", async () => {
    const { ensureDemoAccounts } = await import("@/server/demo/demo-story");
    const { createUser } = await import("@/server/auth/users");
    const { db } = await import("@/server/core/db");
    const demo = (await ensureDemoAccounts(["quinn"])).get("quinn")!;
    expect(demo.username).toBe("quinn");

    const asked = await createUser({ username: "quinn", password: "quinn-password-1", name: "Quinn Real" }).catch((error: unknown) => error);
    // Not silently: the admin is told whose it is and asked.
    expect(asked).toMatchObject({ code: "demo_account", fields: { username: "belongs to a demo person of the simulated fleet", unixLogin: "belongs to a demo person of the simulated fleet" } });
    expect(await db().user.findUniqueOrThrow({ where: { id: demo.id }, select: { username: true } })).toEqual({ username: "quinn" });

    const person = await createUser({ username: "quinn", password: "quinn-password-1", name: "Quinn Real", takeOverDemo: true });
    expect(person).toMatchObject({ username: "quinn", unixLogin: "quinn" });
    const renamed = await db().user.findUniqueOrThrow({ where: { id: demo.id }, select: { username: true, unixLogin: true, simulated: true } });
    expect(renamed).toEqual({ username: "quinn-sim", unixLogin: null, simulated: true });
    // The next start leaves the login with the person, and the demo books nothing in their name.
    expect((await ensureDemoAccounts(["quinn"])).get("quinn")).toBeUndefined();
    expect(await db().user.count({ where: { unixLogin: "quinn" } })).toBe(1);
  });

  it("takes only the login when the username differs (an e2e person whose login is a demo job's)", async () => {
    const { ensureDemoAccounts } = await import("@/server/demo/demo-story");
    const { createUser } = await import("@/server/auth/users");
    await ensureDemoAccounts(["rowan"]);
    const person = await createUser({ username: "booker1", unixLogin: "rowan", password: "booker-password-1", takeOverDemo: true });
    expect(person.unixLogin).toBe("rowan");
  });

  it("lists the demo people as simulated and real people as not (Admin → Users marks them)", async () => {
    const { ensureDemoAccounts } = await import("@/server/demo/demo-story");
    const { createUser, listUsers } = await import("@/server/auth/users");
    await ensureDemoAccounts(["tamsin"]);
    await createUser({ username: "ulrike", password: "ulrike-password-1" });
    const listed = await listUsers();
    expect(listed.find((user) => user.username === "tamsin")).toMatchObject({ simulated: true });
    expect(listed.find((user) => user.username === "ulrike")).toMatchObject({ simulated: false });
  });

  it("still refuses a username or login that belongs to a real person", async () => {
    const { createUser } = await import("@/server/auth/users");
    await createUser({ username: "sasha", password: "sasha-password-1" });
    await expect(createUser({ username: "sasha", password: "other-password-1" })).rejects.toMatchObject({ code: "conflict" });
    await expect(createUser({ username: "sasha2", unixLogin: "sasha", password: "other-password-1" })).rejects.toMatchObject({ code: "conflict" });
  });
});
