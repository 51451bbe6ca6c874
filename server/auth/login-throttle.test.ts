import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

let throttle: typeof import("@/server/auth/login-throttle");

beforeAll(async () => {
  await useTestDatabase();
  throttle = await import("@/server/auth/login-throttle");
});

describe("per-user sign-in throttle", () => {
  it("lets a few failures through, then makes each further attempt wait longer", async () => {
    const t0 = Date.parse("2026-11-30T12:00:00Z");
    for (let i = 0; i < 5; i += 1) {
      expect(await throttle.checkLoginAllowed("Grace", t0 + i)).toBe(0);
      await throttle.recordLoginResult("grace", false, t0 + i);
    }
    const firstWait = await throttle.checkLoginAllowed("grace", t0 + 5);
    expect(firstWait).toBeGreaterThan(0);
    await throttle.recordLoginResult("grace", false, t0 + 5 + firstWait);
    const secondWait = await throttle.checkLoginAllowed("grace", t0 + 5 + firstWait);
    expect(secondWait).toBeGreaterThan(firstWait);
  });

  it("forgets failures after a successful sign-in", async () => {
    const t0 = Date.parse("2026-11-30T12:00:00Z");
    for (let i = 0; i < 8; i += 1) await throttle.recordLoginResult("henry", false, t0 + i);
    expect(await throttle.checkLoginAllowed("henry", t0 + 10)).toBeGreaterThan(0);
    await throttle.recordLoginResult("henry", true, t0 + 10);
    expect(await throttle.checkLoginAllowed("henry", t0 + 11)).toBe(0);
  });

  it("treats unknown usernames exactly like known ones", async () => {
    const t0 = Date.parse("2026-11-30T12:00:00Z");
    for (let i = 0; i < 6; i += 1) await throttle.recordLoginResult("no-such-person", false, t0 + i);
    expect(await throttle.checkLoginAllowed("no-such-person", t0 + 7)).toBeGreaterThan(0);
  });

  it("forgets old failures after an hour", async () => {
    const t0 = Date.parse("2026-11-30T12:00:00Z");
    for (let i = 0; i < 9; i += 1) await throttle.recordLoginResult("ivy", false, t0 + i);
    expect(await throttle.checkLoginAllowed("ivy", t0 + 61 * 60_000)).toBe(0);
  });
});
