import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Every write a count limits holds its limit under parallel requests, on
 * SQLite and PostgreSQL (issue 48, item 5: on PostgreSQL 30 parallel
 * creates made 30 personal webhooks where 10 are allowed, and 20 parallel
 * tests sent 20 messages where 5 a minute are). Each burst is one person's
 * requests at once through the services the routes call, on one client
 * (its pool of connections), as one server answers them.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let webhooks: typeof import("@/server/notifications/webhooks");
let deliveries: typeof import("@/server/notifications/deliveries");
let joinWaitlist: typeof import("@/server/waitlist/join-waitlist").joinWaitlist;
let WAITING_PER_PERSON: number;
let AppError: typeof import("@/server/core/errors").AppError;
let db: typeof import("@/server/core/db").db;
let fx: Fixtures;
let uniqueName: typeof import("@/server/testing/factories").uniqueName;
let teams: typeof import("@/server/teams/team-service");

const publicTarget = { resolve: async () => [{ address: "93.184.216.34", family: 4 as const }] };

beforeAll(async () => {
  await useTestDatabase();
  webhooks = await import("@/server/notifications/webhooks");
  deliveries = await import("@/server/notifications/deliveries");
  ({ joinWaitlist, WAITING_PER_PERSON } = await import("@/server/waitlist/join-waitlist"));
  ({ AppError } = await import("@/server/core/errors"));
  ({ db } = await import("@/server/core/db"));
  fx = await import("@/server/testing/booking-fixtures");
  teams = await import("@/server/teams/team-service");
  ({ uniqueName } = await import("@/server/testing/factories"));
}, 120_000);

/** Runs the burst at once; how many went through, and the codes of the refusals (anything but a refusal fails the test). */
async function burst(count: number, request: (index: number) => Promise<unknown>): Promise<{ made: number; refused: string[] }> {
  const outcomes = await Promise.allSettled(Array.from({ length: count }, (_, index) => request(index)));
  const refused: string[] = [];
  for (const outcome of outcomes) {
    if (outcome.status === "fulfilled") continue;
    if (!(outcome.reason instanceof AppError)) throw outcome.reason;
    refused.push(outcome.reason.code);
  }
  return { made: count - refused.length, refused };
}

describe("a count-limited write under a burst of parallel requests", () => {
  it("30 personal webhooks of one person at once: exactly 10 are made, 20 refused as over the limit", async () => {
    const owner = await fx.createTestUser("member", "hooks");
    const result = await burst(30, (index) => webhooks.createWebhook(owner, { url: `https://hooks.example.test/${index}` }, publicTarget));
    expect(result.made).toBe(webhooks.MAX_PERSONAL_WEBHOOKS);
    expect(result.refused).toEqual(Array(30 - webhooks.MAX_PERSONAL_WEBHOOKS).fill("conflict"));
    expect(await db().webhook.count({ where: { userId: owner.id } })).toBe(webhooks.MAX_PERSONAL_WEBHOOKS);
    expect(await db().auditLog.count({ where: { action: "webhook.create", actorId: owner.id } })).toBe(webhooks.MAX_PERSONAL_WEBHOOKS);
  });

  it("20 test messages through one person's webhooks at once: exactly 5 are queued, 15 refused as too many a minute", async () => {
    const owner = await fx.createTestUser("member", "tests");
    const [first, second] = [
      await webhooks.createWebhook(owner, { url: "https://hooks.example.test/a" }, publicTarget),
      await webhooks.createWebhook(owner, { url: "https://hooks.example.test/b" }, publicTarget),
    ];
    // Spread over two of their webhooks: the limit is the person's, not each webhook's.
    const result = await burst(20, async (index) => deliveries.enqueueTestDelivery(await webhooks.webhookForTest(owner, index % 2 === 0 ? first.id : second.id)));
    expect(result.made).toBe(webhooks.MAX_TESTS_PER_MINUTE);
    expect(result.refused).toEqual(Array(20 - webhooks.MAX_TESTS_PER_MINUTE).fill("rate_limited"));
    expect(await db().webhookDelivery.count({ where: { event: "webhook.test", webhook: { userId: owner.id } } })).toBe(webhooks.MAX_TESTS_PER_MINUTE);
  });

  it("10 waiting requests of one person at once: exactly 2 wait, 8 refused", async () => {
    await fx.createTestHost(4, "waitrace");
    const person = await fx.createTestUser("member", "waiter");
    const result = await burst(10, (index) => joinWaitlist(person, { count: 1, durationMinutes: 60, purpose: `burst ${index}` }));
    expect(result.made).toBe(WAITING_PER_PERSON);
    expect(result.refused).toEqual(Array(10 - WAITING_PER_PERSON).fill("bad_request"));
    expect(await db().waitlistEntry.count({ where: { userId: person.id, status: "waiting" } })).toBe(WAITING_PER_PERSON);
  });

  it("one person added to 6 teams at once has exactly one accounting team (their first), not one per team", async () => {
    const admin = await fx.createTestUser("admin", "teamadmin");
    const person = await fx.createTestUser("member", "joiner");
    const made = await Promise.all(Array.from({ length: 6 }, () => teams.createTeam(admin, { name: uniqueName("race") })));
    await Promise.all(made.map((team) => teams.addTeamMember(admin, team.id, { username: person.username })));
    expect(await db().teamMember.count({ where: { userId: person.id } })).toBe(6);
    expect(await db().teamMember.count({ where: { userId: person.id, accounting: true } })).toBe(1);
  });
});

describe("a name that must be unused, asked for by parallel requests", () => {
  it("6 displays, 6 hosts and 6 accounts of one name at once: one of each is made, the others refused with 409 as the check refuses, never a 500", async () => {
    const { createDisplay } = await import("@/server/auth/tokens");
    const { createHost } = await import("@/server/hosts/host-registry");
    const { createUser } = await import("@/server/auth/users");
    const wall = uniqueName("wall");
    const displays = await burst(6, () => createDisplay(wall));
    const host = uniqueName("host");
    const hosts = await burst(6, () => createHost(host));
    const name = uniqueName("same").replaceAll("-", "_").slice(0, 32);
    const accounts = await burst(6, () => createUser({ username: name, password: "a-long-password" }));
    expect({ displays, hosts, accounts }).toEqual({
      displays: { made: 1, refused: Array(5).fill("conflict") },
      hosts: { made: 1, refused: Array(5).fill("conflict") },
      accounts: { made: 1, refused: Array(5).fill("conflict") },
    });
    // Six password hashes (scrypt) and eighteen transactions: room for a loaded machine.
  }, 90_000);
});

