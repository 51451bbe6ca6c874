import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AlertUpdate, AlertView } from "@/lib/domain/alerts";
import { useTestDatabase } from "@/server/testing/test-db";

/** Webhooks: who gets which alert, the payloads, and retries with backoff against a real local receiver. */

interface Received {
  path: string;
  body: unknown;
}

let receiver: Server;
let base: string;
const received: Received[] = [];
/** Status the receiver answers, per path; 204 by default. */
const answers = new Map<string, number>();

let modules: {
  deliveries: typeof import("@/server/notifications/deliveries");
  webhooks: typeof import("@/server/notifications/webhooks");
  db: typeof import("@/server/core/db");
};
let admin: Awaited<ReturnType<typeof import("@/server/testing/booking-fixtures")["createTestUser"]>>;
let bookedBy: typeof admin;
let other: typeof admin;
let bookingId: string;

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    request.on("data", (chunk: Buffer) => (text += chunk.toString()));
    request.on("end", () => resolve(text));
  });
}

beforeAll(async () => {
  await useTestDatabase();
  receiver = createServer(async (request, response) => {
    const body = await readBody(request);
    received.push({ path: request.url ?? "", body: JSON.parse(body) });
    response.writeHead(answers.get(request.url ?? "") ?? 204).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  const fixtures = await import("@/server/testing/booking-fixtures");
  modules = {
    deliveries: await import("@/server/notifications/deliveries"),
    webhooks: await import("@/server/notifications/webhooks"),
    db: await import("@/server/core/db"),
  };
  [admin, bookedBy, other] = await Promise.all([fixtures.createTestUser("admin", "admin"), fixtures.createTestUser("member", "bookedBy"), fixtures.createTestUser("member", "other")]);
  const host = await fixtures.createTestHost(2);
  const gpu = await modules.db.db().gpu.findUniqueOrThrow({ where: { uuid: host.gpus[0].uuid }, select: { id: true } });
  const now = Date.now();
  const booking = await modules.db.db().reservation.create({
    data: {
      userId: bookedBy.id,
      hostId: host.id,
      startsAt: new Date(now - 60_000),
      endsAt: new Date(now + 3_600_000),
      purpose: "webhook test",
      gpus: { create: { gpuId: gpu.id, startsAt: new Date(now - 60_000), endsAt: new Date(now + 3_600_000) } },
    },
    select: { id: true },
  });
  bookingId = booking.id;
  // Migrating a fresh database takes a while on a busy machine.
}, 120_000);

afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

beforeEach(async () => {
  received.length = 0;
  answers.clear();
  await modules.db.db().webhookDelivery.deleteMany();
  await modules.db.db().webhook.deleteMany();
});

function alert(overrides: Partial<AlertView> = {}): AlertView {
  return {
    id: `alert-${Math.random().toString(36).slice(2)}`,
    kind: "conflict",
    subjectKey: "conflict:GPU-x:r",
    host: { id: "h", name: "node-a" },
    gpu: { uuid: "GPU-x", index: 2 },
    reservationId: bookingId,
    bookedById: null,
    people: [],
    message: "bob on GPU 2 of node-a, booked by alice",
    evidence: {},
    openedAt: new Date().toISOString(),
    closedAt: null,
    acknowledgedAt: null,
    acknowledgedBy: null,
    ...overrides,
  };
}

const change = (event: AlertUpdate["event"], view: AlertView): AlertUpdate => ({ serverTime: new Date().toISOString(), event, alert: view });

describe("enqueueAlertDeliveries", () => {
  it("queues for admin webhooks of the alert's kind and for the booker's personal webhooks, not for others'", async () => {
    const { createWebhook } = modules.webhooks;
    const conflictsOnly = await createWebhook(admin, { url: `${base}/admin-conflicts`, format: "json", kinds: ["conflict"], scope: "admin" });
    await createWebhook(admin, { url: `${base}/admin-idle`, format: "slack", kinds: ["idle_booking"], scope: "admin" });
    const everything = await createWebhook(admin, { url: `${base}/admin-all`, format: "slack", scope: "admin" });
    // Personal webhooks may call the local receiver only because it is allowed, as GPUDESK_WEBHOOK_PRIVATE_TARGETS would.
    const loopback = { allowPrivate: () => true };
    const mine = await createWebhook(bookedBy, { url: `${base}/bookedBy`, format: "json" }, loopback);
    await createWebhook(other, { url: `${base}/other`, format: "json" }, loopback);

    expect(await modules.deliveries.enqueueAlertDeliveries(change("opened", alert()))).toBe(3);
    const queued = await modules.db.db().webhookDelivery.findMany({ select: { webhookId: true, event: true, status: true } });
    expect(queued.map((row) => row.webhookId).sort()).toEqual([conflictsOnly.id, everything.id, mine.id].sort());
    expect(queued.every((row) => row.event === "alert.opened" && row.status === "pending")).toBe(true);

    // Acknowledgements are not sent; an alert about no booking reaches admin webhooks only.
    expect(await modules.deliveries.enqueueAlertDeliveries(change("acknowledged", alert()))).toBe(0);
    expect(await modules.deliveries.enqueueAlertDeliveries(change("opened", alert({ kind: "unbooked_use", reservationId: null })))).toBe(1);
  });

  it("refuses a fleet-wide webhook from a member", async () => {
    await expect(modules.webhooks.createWebhook(bookedBy, { url: `${base}/x`, scope: "admin" })).rejects.toMatchObject({ code: "forbidden" });
    await expect(modules.webhooks.createWebhook(bookedBy, { url: "ftp://example.test/x" })).rejects.toThrow();
  });
});

describe("DeliveryWorker", () => {
  it("delivers the JSON and the Slack-compatible payloads", async () => {
    await modules.webhooks.createWebhook(admin, { url: `${base}/json`, format: "json", scope: "admin" });
    await modules.webhooks.createWebhook(admin, { url: `${base}/slack`, format: "slack", scope: "admin" });
    const view = alert();
    await modules.deliveries.enqueueAlertDeliveries(change("opened", view), { publicUrl: "https://gpudesk.example" });

    const worker = new modules.deliveries.DeliveryWorker();
    expect(await worker.runOnce()).toBe(2);
    const json = received.find((entry) => entry.path === "/json")?.body as { event: string; alert: AlertView; link: string };
    expect(json).toMatchObject({ event: "alert.opened", alert: { id: view.id, kind: "conflict", message: view.message }, link: `https://gpudesk.example/alerts?alert=${view.id}` });
    const slack = received.find((entry) => entry.path === "/slack")?.body as { text: string };
    expect(slack.text).toContain("Conflict opened");
    expect(slack.text).toContain("node-a GPU 2");
    expect(slack.text).toContain(`<https://gpudesk.example/alerts?alert=${view.id}|details>`);

    const rows = await modules.db.db().webhookDelivery.findMany({ select: { status: true, attempts: true, lastStatusCode: true, deliveredAt: true } });
    expect(rows.every((row) => row.status === "delivered" && row.attempts === 1 && row.lastStatusCode === 204 && row.deliveredAt)).toBe(true);
  });

  it("retries a refused delivery with growing waits, then gives up", async () => {
    answers.set("/flaky", 503);
    await modules.webhooks.createWebhook(admin, { url: `${base}/flaky`, scope: "admin" });
    let clock = Date.parse("2026-12-01T10:00:00.000Z");
    await modules.deliveries.enqueueAlertDeliveries(change("opened", alert()), { now: new Date(clock) });
    const worker = new modules.deliveries.DeliveryWorker({ now: () => clock });
    const row = () => modules.db.db().webhookDelivery.findFirstOrThrow({ select: { status: true, attempts: true, nextAttemptAt: true, lastError: true, lastStatusCode: true } });

    expect(await worker.runOnce()).toBe(1);
    expect(await row()).toMatchObject({ status: "pending", attempts: 1, lastError: "HTTP 503", lastStatusCode: 503, nextAttemptAt: new Date(clock + 10_000) });
    // Not due yet: nothing is sent.
    clock += 9_000;
    expect(await worker.runOnce()).toBe(0);

    const waits: number[] = [];
    for (let attempt = 2; attempt <= 7; attempt++) {
      const { nextAttemptAt } = await row();
      waits.push(nextAttemptAt.getTime() - clock);
      clock = nextAttemptAt.getTime();
      expect(await worker.runOnce()).toBe(1);
    }
    expect(waits.slice(1)).toEqual([30_000, 120_000, 600_000, 1_800_000, 3_600_000]);
    expect(await row()).toMatchObject({ status: "failed", attempts: 7 });
    expect(received.filter((entry) => entry.path === "/flaky")).toHaveLength(7);

    // Once the receiver recovers, a new alert goes through at the first attempt.
    answers.delete("/flaky");
    await modules.db.db().webhookDelivery.deleteMany();
    await modules.deliveries.enqueueAlertDeliveries(change("closed", alert()), { now: new Date(clock) });
    await worker.runOnce();
    expect(await row()).toMatchObject({ status: "delivered", attempts: 1 });
  });

  it("a started worker wakes for a retry at its due time, not by polling", async () => {
    answers.set("/flaky", 503);
    await modules.webhooks.createWebhook(admin, { url: `${base}/flaky`, scope: "admin" });
    let clock = Date.parse("2026-12-01T10:00:00.000Z");
    await modules.deliveries.enqueueAlertDeliveries(change("opened", alert()), { now: new Date(clock) });
    const timers: { delayMs: number; fire: () => void; cancelled: boolean }[] = [];
    const worker = new modules.deliveries.DeliveryWorker({
      now: () => clock,
      // The fallback poll never fires within the test: only the retry's own wake can send again.
      pollMs: 3_600_000,
      setTimer: (fire, delayMs) => {
        const timer = { delayMs, fire, cancelled: false };
        timers.push(timer);
        return { cancel: () => void (timer.cancelled = true) };
      },
    });
    const attempts = () => received.filter((entry) => entry.path === "/flaky").length;
    worker.start();
    try {
      await expect.poll(attempts).toBe(1);
      await expect.poll(() => timers.length).toBe(1);
      expect(timers[0].delayMs).toBe(10_000);

      // Due: the timer wakes the worker, which sends again and sets the next wait.
      clock += 10_000;
      timers[0].fire();
      await expect.poll(attempts).toBe(2);
      await expect.poll(() => timers.length).toBe(2);
      expect(timers[1].delayMs).toBe(30_000);
    } finally {
      await worker.stop();
    }
    // Stopping cancels the pending wake.
    expect(timers[1].cancelled).toBe(true);
  });

  it("records why an unreachable webhook failed", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await modules.webhooks.createWebhook(admin, { url: `http://127.0.0.1:${port}/gone`, scope: "admin" });
    await modules.deliveries.enqueueAlertDeliveries(change("opened", alert()));
    await new modules.deliveries.DeliveryWorker().runOnce();
    const row = await modules.db.db().webhookDelivery.findFirstOrThrow({ select: { status: true, lastError: true, lastStatusCode: true } });
    expect(row).toMatchObject({ status: "pending", lastError: "ECONNREFUSED", lastStatusCode: null });
  });
});

describe("a MIG slice in webhook messages and the delivery log", () => {
  it("is named as every surface names it ('GPU 0:2 (1g.10gb)'), not by its GPU's index", async () => {
    const factories = await import("@/server/testing/factories");
    const { ensureLocalHost, recordHostInventory } = await import("@/server/hosts/host-registry");
    const { alertSelect, toAlertViews } = await import("@/server/alerts/alert-store");
    const name = factories.uniqueName("mig");
    const host = await ensureLocalHost(name, true);
    const parent = factories.makeGpu({ index: 0, migMode: "Enabled", utilizationGpuPct: null });
    const slices = [0, 1, 2].map((deviceIndex) =>
      factories.makeGpu({
        index: 0,
        uuid: `MIG-${factories.gpuUuid().slice(4)}`,
        memoryTotalMiB: 9984,
        utilizationGpuPct: null,
        migMode: "Enabled",
        mig: { parentUuid: parent.uuid, profile: deviceIndex === 2 ? "1g.10gb" : "3g.40gb", gpuInstanceId: deviceIndex + 1, computeInstanceId: 0, deviceIndex },
      }),
    );
    await recordHostInventory(host.id, { name, driverVersion: "590.48.01", cudaVersion: "13.1" }, [parent, ...slices], new Date());
    const row = await modules.db.db().alert.create({
      data: { kind: "memory_pressure", subjectKey: `memory_pressure:${slices[2]!.uuid}`, hostId: host.id, gpuUuid: slices[2]!.uuid, gpuIndex: 0, message: "GPU 0:2 (1g.10gb) is at 96 % of its memory" },
      select: alertSelect,
    });
    const [view] = await toAlertViews([row]);
    await modules.webhooks.createWebhook(admin, { url: `${base}/slack-slice`, format: "slack", scope: "admin" });
    await modules.deliveries.enqueueAlertDeliveries(change("opened", view!));
    expect(await new modules.deliveries.DeliveryWorker().runOnce()).toBe(1);

    const slack = received.find((entry) => entry.path === "/slack-slice")?.body as { text: string };
    expect(slack.text).toContain(`on ${name} GPU 0:2 (1g.10gb):`);
    const [logged] = await modules.webhooks.listDeliveries(admin, { limit: 10 });
    expect(logged?.alert).toMatchObject({ hostName: name, gpuIndex: 0, unit: "GPU 0:2 (1g.10gb)" });
  });
});
