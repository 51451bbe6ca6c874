import { beforeAll, describe, expect, it } from "vitest";
import { firstNodeShape, shapeOverLimit } from "@/lib/domain/multi-node";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The form and the policy agree (issue 50): on a fresh install (the
 * default policy, 8 GPUs per person at once) the first shape "Across
 * nodes" offers is one a member can book; the shape it offered before
 * (2 × 8) is refused by that policy, and the form says which limit and who
 * changes it before submit.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createMultiNodeBooking: typeof import("@/server/bookings/commands/create-multi-node").createMultiNodeBooking;
let readPolicy: typeof import("@/server/bookings/rules/policy").readPolicy;
let db: typeof import("@/server/core/db").db;
let fx: Fixtures;

beforeAll(async () => {
  await useTestDatabase();
  ({ createMultiNodeBooking } = await import("@/server/bookings/commands/create-multi-node"));
  ({ readPolicy } = await import("@/server/bookings/rules/policy"));
  ({ db } = await import("@/server/core/db"));
  fx = await import("@/server/testing/booking-fixtures");
}, 120_000);

describe("the form's first shape across nodes on a fresh install", () => {
  it("is booked by a member under the default policy; 2 × 8 is refused by it and said before submit", async () => {
    const policy = await readPolicy(db());
    expect(policy.maxGpusPerUser).toBe(8);
    const shape = firstNodeShape(policy.maxGpusPerUser);
    expect(shape).toEqual({ nodes: "2", gpusPerNode: "4" });
    const { model } = await fx.createModelFleet(2, 8);
    const member = await fx.createTestUser();
    const booking = await createMultiNodeBooking(member, { nodes: Number(shape.nodes), gpusPerNode: Number(shape.gpusPerNode), model, durationMinutes: 60, purpose: "first shape" });
    expect(booking.parts.map((part) => part.gpus.length)).toEqual([4, 4]);

    const other = await fx.createTestUser();
    const free = await fx.createModelFleet(2, 8);
    await expect(createMultiNodeBooking(other, { nodes: 2, gpusPerNode: 8, model: free.model, durationMinutes: 60, purpose: "old first shape" })).rejects.toMatchObject({ message: expect.stringContaining("You would hold 16 GPUs at once; the limit is 8") });
    expect(shapeOverLimit(2, 8, policy.maxGpusPerUser)).toBe("2 × 8 is 16 GPUs; the booking policy lets a person hold 8 at once (an admin changes it in Admin → Policies)");
    expect(shapeOverLimit(2, 4, policy.maxGpusPerUser)).toBeNull();
    // A policy of 16 offers 2 × 8; of 1, a shape of 1 GPU a node (refused before submit, with the reason).
    expect(firstNodeShape(16)).toEqual({ nodes: "2", gpusPerNode: "8" });
    expect(firstNodeShape(1)).toEqual({ nodes: "2", gpusPerNode: "1" });
  });
});
