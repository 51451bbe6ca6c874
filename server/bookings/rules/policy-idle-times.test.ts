import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Policy forms refuse settings that contradict each other (issue 38): an
 * idle warning of 10 minutes with release after 6 was saved without a word.
 * Changing one of the two alone is judged against the other as stored.
 */

let updatePolicy: typeof import("@/server/bookings/rules/policy").updatePolicy;
let fx: typeof import("@/server/testing/booking-fixtures");

beforeAll(async () => {
  await useTestDatabase();
  ({ updatePolicy } = await import("@/server/bookings/rules/policy"));
  fx = await import("@/server/testing/booking-fixtures");
}, 60_000);

describe("idle release's times", () => {
  it("refuses a warning longer than the stored release time, with the message at the warning's field", async () => {
    const admin = await fx.createTestUser("admin");
    const base = { maxDurationMinutes: 480, maxGpusPerUser: 8, maxAdvanceDays: 30 };
    await updatePolicy(admin, { ...base, idleReleaseAfterMinutes: 6, idleWarningMinutes: 2 });
    const refused = await fx.refusal(updatePolicy(admin, { ...base, idleWarningMinutes: 10 }));
    expect(refused.code).toBe("bad_request");
    expect(refused.fields).toEqual({ idleWarningMinutes: "The warning comes before the release: make it shorter than the 6 idle minutes after which a booking is released" });
    // Shortening the release below the stored warning is the same contradiction.
    expect((await fx.refusal(updatePolicy(admin, { ...base, idleReleaseAfterMinutes: 2 }))).code).toBe("bad_request");
    expect((await updatePolicy(admin, { ...base, idleReleaseAfterMinutes: 20, idleWarningMinutes: 10 })).idleWarningMinutes).toBe(10);
  });
});
