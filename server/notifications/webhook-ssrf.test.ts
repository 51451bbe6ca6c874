import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Personal webhooks cannot make the server call what only it can reach
 * (itself, cloud metadata, the lab's network): checked when set, and again,
 * after resolving the name, at every delivery. A real local receiver shows
 * what reaches it.
 */

let receiver: Server;
let port: number;
const hits: string[] = [];
let modules: {
  deliveries: typeof import("@/server/notifications/deliveries");
  webhooks: typeof import("@/server/notifications/webhooks");
  target: typeof import("@/server/notifications/webhook-target");
  db: typeof import("@/server/core/db");
  fixtures: typeof import("@/server/testing/booking-fixtures");
};
let admin: Awaited<ReturnType<typeof import("@/server/testing/booking-fixtures")["createTestUser"]>>;

beforeAll(async () => {
  await useTestDatabase();
  receiver = createServer((request, response) => {
    hits.push(request.url ?? "");
    response.writeHead(request.url === "/teapot" ? 418 : 204).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  port = (receiver.address() as AddressInfo).port;
  modules = {
    deliveries: await import("@/server/notifications/deliveries"),
    webhooks: await import("@/server/notifications/webhooks"),
    target: await import("@/server/notifications/webhook-target"),
    db: await import("@/server/core/db"),
    fixtures: await import("@/server/testing/booking-fixtures"),
  };
  admin = await modules.fixtures.createTestUser("admin", "ssrfadmin");
}, 120_000);

afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

beforeEach(() => {
  hits.length = 0;
});

const member = () => modules.fixtures.createTestUser("member", "ssrf");
const loopbackAllowed = () => modules.target.privateTargetAllowList([{ address: "127.0.0.1", prefix: 32 }]);

async function deliveryOf(webhookId: string) {
  return modules.db.db().webhookDelivery.findFirstOrThrow({ where: { webhookId }, select: { status: true, lastError: true, lastStatusCode: true, attempts: true } });
}

describe("setting a personal webhook", () => {
  it.each([
    "http://127.0.0.1:PORT/x",
    "http://0x7f000001:PORT/x",
    "http://2130706433:PORT/x",
    "http://0177.0.0.1:PORT/x",
    "http://[::1]:PORT/x",
    "http://[::ffff:127.0.0.1]:PORT/x",
    "http://[::ffff:7f00:1]:PORT/x",
    "http://localhost:PORT/x",
    "http://169.254.169.254/latest/meta-data/",
    "http://10.1.2.3/hook",
    "http://192.168.0.10/hook",
    "http://172.20.0.1/hook",
    "http://0.0.0.0:PORT/x",
    "http://[::]:PORT/x",
    "http://[fe80::1]/x",
    "http://[fd00::5]/x",
  ])("refuses %s", async (template) => {
    const url = template.replace("PORT", String(port));
    const error = await modules.webhooks.createWebhook(await member(), { url }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "bad_request", fields: { url: expect.stringContaining("private") } });
  });

  it("refuses a name that resolves to a private address, and a change of URL to one", async () => {
    const owner = await member();
    const publicDns = async () => [{ address: "93.184.216.34", family: 4 }];
    const privateDns = async () => [{ address: "93.184.216.34", family: 4 }, { address: "10.0.0.7", family: 4 }];
    await expect(modules.webhooks.createWebhook(owner, { url: "https://hooks.example.test/a" }, { resolve: privateDns })).rejects.toMatchObject({ code: "bad_request" });
    const created = await modules.webhooks.createWebhook(owner, { url: "https://hooks.example.test/a" }, { resolve: publicDns });
    await expect(modules.webhooks.updateWebhook(owner, created.id, { url: "http://127.0.0.1/x" })).rejects.toMatchObject({ code: "bad_request" });
  });

  it("lets an admin's fleet-wide webhook and an allowed private range through", async () => {
    await modules.webhooks.createWebhook(admin, { url: `http://127.0.0.1:${port}/fleet`, scope: "admin" });
    const allowed = await modules.webhooks.createWebhook(await member(), { url: `http://127.0.0.1:${port}/allowed` }, { allowPrivate: loopbackAllowed() });
    expect(allowed.url).toBe(`http://127.0.0.1:${port}/allowed`);
  });

  it("allows a person at most 10 webhooks", async () => {
    const owner = await member();
    for (let i = 0; i < modules.webhooks.MAX_PERSONAL_WEBHOOKS; i += 1) {
      await modules.webhooks.createWebhook(owner, { url: `https://hooks.example.test/${i}` }, { resolve: async () => [{ address: "93.184.216.34", family: 4 }] });
    }
    await expect(modules.webhooks.createWebhook(owner, { url: "https://hooks.example.test/11" })).rejects.toMatchObject({ code: "conflict" });
  });
});

describe("delivering to a personal webhook", () => {
  async function personalRow(url: string) {
    // As a webhook set before these rules, or whose name now resolves elsewhere.
    const owner = await member();
    const row = await modules.db.db().webhook.create({ data: { url, format: "json", kinds: "[]", userId: owner.id }, select: { id: true } });
    await modules.deliveries.enqueueTestDelivery({ id: row.id, format: "json", ownerId: owner.id });
    return { owner, id: row.id };
  }

  it("checks the target again at every attempt and never connects to a private one", async () => {
    const { id } = await personalRow(`http://127.0.0.1:${port}/stored`);
    await new modules.deliveries.DeliveryWorker().runOnce();
    expect(hits).toEqual([]);
    expect(await deliveryOf(id)).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: null, lastError: expect.stringMatching(/^refused: .*private/) });
  });

  it("connects to the address it checked (a name that rebinds to loopback is refused)", async () => {
    const { id } = await personalRow(`http://rebind.example.test:${port}/rebind`);
    const worker = new modules.deliveries.DeliveryWorker({ resolve: async () => [{ address: "127.0.0.1", family: 4 }] });
    await worker.runOnce();
    expect(hits).toEqual([]);
    expect((await deliveryOf(id)).status).toBe("failed");
  });

  it("reaches an address the admin allowed (GPUDESK_WEBHOOK_PRIVATE_TARGETS), through the checked address", async () => {
    const { id } = await personalRow(`http://allowed.example.test:${port}/allowed`);
    const worker = new modules.deliveries.DeliveryWorker({ allowPrivate: loopbackAllowed(), resolve: async () => [{ address: "127.0.0.1", family: 4 }] });
    await worker.runOnce();
    expect(hits).toEqual(["/allowed"]);
    expect(await deliveryOf(id)).toMatchObject({ status: "delivered", lastStatusCode: 204 });
  });

  it("shows the member the outcome, not what the far side answered; the admin sees it all", async () => {
    const { owner, id } = await personalRow(`http://127.0.0.1:${port}/teapot`);
    await new modules.deliveries.DeliveryWorker({ allowPrivate: loopbackAllowed() }).runOnce();
    expect(hits).toEqual(["/teapot"]);
    const mine = (await modules.webhooks.listDeliveries(owner, { limit: 10 })).find((delivery) => delivery.webhook.id === id);
    expect(mine).toMatchObject({ status: "pending", lastStatusCode: null, lastError: "not delivered" });
    const adminView = (await modules.webhooks.listDeliveries(admin, { limit: 50 })).find((delivery) => delivery.webhook.id === id);
    expect(adminView).toMatchObject({ lastStatusCode: 418, lastError: "HTTP 418" });
  });

  it("limits test messages to 5 a minute per person", async () => {
    const owner = await member();
    const hook = await modules.webhooks.createWebhook(owner, { url: "https://hooks.example.test/t" }, { resolve: async () => [{ address: "93.184.216.34", family: 4 }] });
    for (let i = 0; i < modules.webhooks.MAX_TESTS_PER_MINUTE; i += 1) {
      await modules.deliveries.enqueueTestDelivery(await modules.webhooks.webhookForTest(owner, hook.id));
    }
    await expect(modules.deliveries.enqueueTestDelivery(await modules.webhooks.webhookForTest(owner, hook.id))).rejects.toMatchObject({ code: "rate_limited", status: 429 });
  });
});

describe("isPublicAddress", () => {
  it("knows public from loopback, private, link-local, unspecified and mapped forms", () => {
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700::1111"]) expect(modules.target.isPublicAddress(address)).toBe(true);
    for (const address of ["127.0.0.1", "127.255.0.1", "10.0.0.1", "100.64.0.1", "169.254.169.254", "172.31.255.255", "192.168.1.1", "0.0.0.0", "255.255.255.255", "::", "::1", "::ffff:127.0.0.1", "::ffff:a00:1", "fe80::1", "fd12::1", "64:ff9b::7f00:1", "not-an-ip"]) {
      expect(modules.target.isPublicAddress(address)).toBe(false);
    }
  });
});
