import { beforeAll, describe, expect, it } from "vitest";
import type { UserPrincipal } from "@/server/access/principal";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The last-admin rule under a race, on both databases: the two remaining
 * admins demote (or disable) each other at the same moment. The count runs
 * in the transaction, after the other's change, so one of them stays admin.
 */

beforeAll(async () => {
  await useTestDatabase();
}, 120_000);

let round = 0;

async function twoAdmins(): Promise<[UserPrincipal, UserPrincipal]> {
  const { createUser } = await import("@/server/auth/users");
  const { db } = await import("@/server/core/db");
  // Only these two are admins in this round.
  await db().user.updateMany({ where: { role: "admin" }, data: { role: "member" } });
  round += 1;
  const made = await Promise.all(["ann", "bea"].map((who) => createUser({ username: `${who}${round}`, password: "admin-password-1", role: "admin" })));
  return made.map((user) => ({ kind: "user", via: "session", user: { id: user.id, username: user.username, name: user.name, role: "admin", unixLogin: user.unixLogin } })) as [UserPrincipal, UserPrincipal];
}

async function activeAdmins(): Promise<number> {
  const { db } = await import("@/server/core/db");
  return db().user.count({ where: { role: "admin", OR: [{ banned: false }, { banned: null }] } });
}

describe("the last admin", () => {
  it.each([
    ["demote", { role: "member" }],
    ["disable", { disabled: true }],
  ])("two admins who %s each other at once leave one admin", async (_, patch) => {
    const { updateUser } = await import("@/server/auth/users");
    for (let attempt = 0; attempt < 5; attempt++) {
      const [ann, bea] = await twoAdmins();
      const results = await Promise.allSettled([updateUser(bea.user.id, patch, ann), updateUser(ann.user.id, patch, bea)]);
      expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
      const refused = results.find((result) => result.status === "rejected");
      expect(refused && "reason" in refused ? refused.reason : null).toMatchObject({ code: "conflict", message: expect.stringContaining("last admin") });
      expect(await activeAdmins()).toBe(1);
    }
  });
});
