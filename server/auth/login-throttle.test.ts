import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

let throttle: typeof import("@/server/auth/login-throttle");

beforeAll(async () => {
  await useTestDatabase();
  throttle = await import("@/server/auth/login-throttle");
});

const claimWait = async (username: string, now: number) => (await throttle.claimLogin(username, now)).wait;

/** Attempts that failed: each was counted when it was claimed. */
async function fail(username: string, times: number, t0: number): Promise<void> {
  for (let i = 0; i < times; i += 1) expect(await claimWait(username, t0 + i)).toBe(0);
}

describe("per-user sign-in throttle", () => {
  it("lets a few attempts through, then makes each further attempt wait longer", async () => {
    const t0 = Date.parse("2026-11-30T12:00:00Z");
    await fail("Grace", 5, t0);
    const firstWait = await claimWait("grace", t0 + 5);
    expect(firstWait).toBeGreaterThan(0);
    expect(await claimWait("grace", t0 + 5 + firstWait)).toBe(0);
    const secondWait = await claimWait("grace", t0 + 5 + firstWait);
    expect(secondWait).toBeGreaterThan(firstWait);
  });

  it("counts parallel attempts one by one: of 30 at once, only the free ones go ahead", async () => {
    const t0 = Date.parse("2026-11-30T12:00:00Z");
    const waits = await Promise.all(Array.from({ length: 30 }, () => claimWait("parallel", t0)));
    expect(waits.filter((wait) => wait === 0)).toHaveLength(5);
  });

  it("forgets attempts after a successful sign-in", async () => {
    const t0 = Date.parse("2026-11-30T12:00:00Z");
    await fail("henry", 4, t0);
    const { wait, claim } = await throttle.claimLogin("henry", t0 + 4);
    expect(wait).toBe(0);
    await throttle.clearLoginCount(claim);
    await fail("henry", 5, t0 + 10);
    expect(await claimWait("henry", t0 + 20)).toBeGreaterThan(0);
  });

  it("a success does not clear the guesses counted after its own claim", async () => {
    const t0 = Date.parse("2026-11-30T12:00:00Z");
    const { claim } = await throttle.claimLogin("jade", t0);
    await fail("jade", 4, t0 + 1);
    await throttle.clearLoginCount(claim);
    expect(await claimWait("jade", t0 + 10)).toBeGreaterThan(0);
  });

  it("treats unknown usernames exactly like known ones", async () => {
    const t0 = Date.parse("2026-11-30T12:00:00Z");
    await fail("no-such-person", 5, t0);
    expect(await claimWait("no-such-person", t0 + 7)).toBeGreaterThan(0);
  });

  it("forgets old attempts after an hour", async () => {
    const t0 = Date.parse("2026-11-30T12:00:00Z");
    await fail("ivy", 5, t0);
    expect(await claimWait("ivy", t0 + 61 * 60_000)).toBe(0);
  });
});
