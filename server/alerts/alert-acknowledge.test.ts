import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

/** Misuse alerts are silenced by admins only: the person an alert is about cannot hush it. */

let modules: { queries: typeof import("@/server/alerts/alert-queries"); fixtures: typeof import("@/server/testing/booking-fixtures"); db: typeof import("@/server/core/db") };

beforeAll(async () => {
  await useTestDatabase();
  modules = {
    queries: await import("@/server/alerts/alert-queries"),
    fixtures: await import("@/server/testing/booking-fixtures"),
    db: await import("@/server/core/db"),
  };
}, 120_000);

async function alertAbout(kind: string, userIds: string[], bookingId: string | null = null): Promise<string> {
  const host = await modules.fixtures.createTestHost(1, "ackhost");
  const row = await modules.db.db().alert.create({
    data: { kind, subjectKey: `${kind}:${host.id}`, hostId: host.id, gpuUuid: host.gpus[0].uuid, gpuIndex: 0, reservationId: bookingId, userIds: JSON.stringify(userIds), message: kind, evidence: "{}", openedAt: new Date() },
    select: { id: true },
  });
  return row.id;
}

describe("acknowledging misuse alerts", () => {
  it("refuses the person who uses a GPU without a booking; an admin acknowledges it", async () => {
    const squatter = await modules.fixtures.createTestUser("member", "squatter");
    const admin = await modules.fixtures.createTestUser("admin", "ackadmin");
    const id = await alertAbout("unbooked_use", [squatter.id]);
    await expect(modules.queries.acknowledgeAlert(squatter, id)).rejects.toMatchObject({ code: "forbidden", message: "Only an admin can acknowledge this alert" });
    expect((await modules.queries.acknowledgeAlert(admin, id)).acknowledgedBy).toMatchObject({ id: admin.id });
  });

  it("refuses both people of a conflict", async () => {
    const bookedBy = await modules.fixtures.createTestUser("member", "ackbooker");
    const intruder = await modules.fixtures.createTestUser("member", "ackintruder");
    const id = await alertAbout("conflict", [bookedBy.id, intruder.id], "res-ack");
    for (const person of [bookedBy, intruder]) await expect(modules.queries.acknowledgeAlert(person, id)).rejects.toMatchObject({ code: "forbidden" });
  });

  it("still lets the booker acknowledge an alert that is not about misuse", async () => {
    const bookedBy = await modules.fixtures.createTestUser("member", "ackidle");
    const id = await alertAbout("memory_pressure", [bookedBy.id], "res-mem");
    expect((await modules.queries.acknowledgeAlert(bookedBy, id)).acknowledgedAt).not.toBeNull();
  });
});
