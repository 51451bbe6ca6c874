import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

let db: typeof import("@/server/core/db").db;
let store: typeof import("@/server/alerts/alert-store");
let fx: typeof import("@/server/testing/booking-fixtures");

beforeAll(async () => {
  await useTestDatabase();
  ({ db } = await import("@/server/core/db"));
  store = await import("@/server/alerts/alert-store");
  fx = await import("@/server/testing/booking-fixtures");
}, 60_000);

describe("an alert about a MIG slice", () => {
  it("names the slice as every surface does (the alerts page's heading reads it)", async () => {
    const host = await fx.createMigTestHost(["4g.40gb", "3g.40gb"]);
    const slice = host.slices[1]!;
    const row = await db().alert.create({
      data: { kind: "memory_pressure", subjectKey: `memory_pressure:${slice.uuid}`, hostId: host.id, gpuUuid: slice.uuid, gpuIndex: 0, message: "full" },
      select: store.alertSelect,
    });
    const [view] = await store.toAlertViews([row]);
    expect(view!.gpu).toEqual({ uuid: slice.uuid, index: 0, unit: "GPU 0:1 (3g.40gb)" });
    // A GPU gone from the inventory keeps its index.
    const gone = await db().alert.create({ data: { kind: "gpu_lost", subjectKey: "gpu_lost:GPU-gone", hostId: host.id, gpuUuid: "GPU-gone", gpuIndex: 3, message: "gone" }, select: store.alertSelect });
    expect((await store.toAlertViews([gone]))[0]!.gpu).toEqual({ uuid: "GPU-gone", index: 3, unit: "GPU 3" });
  });
});
