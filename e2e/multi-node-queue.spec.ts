import { expect, test } from "@playwright/test";
import type { BookingView } from "@/lib/domain/booking-types";
import type { WaitlistView } from "@/lib/domain/waitlist-schema";
import { createUser, idleH200Host, releaseEverything, signIn, tokenFor } from "./helpers";
import type { ChildProcess } from "node:child_process";

/**
 * A request across nodes in the queue, on hosts of this spec's own: it
 * waits as one request on /queue, says which node is free and which is
 * held, and is granted whole (both parts) within a pass once the held node
 * is released.
 */

test.setTimeout(300_000);

const tokens: string[] = [];
const children: ChildProcess[] = [];
test.afterEach(async ({ request }) => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const token of tokens.splice(0)) await releaseEverything(request, token);
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const ownHost = (prefix: string) => idleH200Host(prefix, children);

test("a request across nodes waits on /queue as one request, names the node that holds it, and is granted whole after a release", async ({ browser, request }) => {
  const [bookedBy, waiter] = [await createUser("mnqbooker"), await createUser("mnqwaiter")];
  const bookerToken = await tokenFor(bookedBy, "e2e multi-node queue");
  const waiterToken = await tokenFor(waiter, "e2e multi-node queue");
  tokens.push(bookerToken, waiterToken);
  const [free, held] = [await ownHost("e2e-mnq-a"), await ownHost("e2e-mnq-b")];

  let holding = { id: "" };
  await expect
    .poll(
      async () => {
        const booked = await request.post("/api/v1/reservations", { headers: bearer(bookerToken), data: { host: held, gpus: [0], durationMinutes: 60, purpose: "holds node b" } });
        if (booked.status() === 201) holding = (await booked.json()) as typeof holding;
        return booked.status();
      },
      { timeout: 60_000, intervals: [1_000] },
    )
    .toBe(201);

  // Both parts now: refused whole (nothing booked), so the waiter queues for the whole booking.
  const parts = [{ host: free, gpus: 1 }, { host: held, gpus: 1 }];
  const now = await request.post("/api/v1/reservations", { headers: bearer(waiterToken), data: { parts, durationMinutes: 30, purpose: "two-node finetune" } });
  expect(now.status(), await now.text()).toBe(409);
  const joined = await request.post("/api/v1/waitlist", { headers: bearer(waiterToken), data: { parts, durationMinutes: 30, purpose: "two-node finetune" } });
  expect(joined.status(), await joined.text()).toBe(201);
  const entry = (await joined.json()) as WaitlistView;
  expect(entry).toMatchObject({ count: 2, host: null, multiNode: { label: `2 × 1 (${free}, ${held})` } });
  expect(entry.waitingBecause?.message).toMatch(new RegExp(`^GPUs held: .* holds ${held} GPU 0 until .*; needs ${free} and ${held} at once: ${free} is free now`));

  const context = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
  const page = await context.newPage();
  await signIn(page, waiter);
  await page.goto("/queue");
  const row = page.locator('[data-testid="queue-row"][data-mine="true"]').filter({ hasText: "two-node finetune" });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(`2 × 1 (${free}, ${held}) across nodes for 30 min`);
  await expect(row.getByTestId("waiting-because")).toContainText(`${free} is free now`);
  await page.screenshot({ path: "test-results/screens/queue-multi-node.png", fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: "test-results/screens/queue-multi-node-phone.png", fullPage: true });
  await context.close();

  // The held node is released: the next pass grants both parts at once.
  const released = await request.post(`/api/v1/reservations/${holding.id}/release`, { headers: bearer(bookerToken) });
  expect(released.ok(), await released.text()).toBe(true);
  let granted: WaitlistView | null = null;
  await expect
    .poll(
      async () => {
        granted = (await (await request.get(`/api/v1/waitlist/${entry.id}`, { headers: bearer(waiterToken) })).json()) as WaitlistView;
        return granted.status;
      },
      { timeout: 60_000, intervals: [1_000] },
    )
    .toBe("granted");
  const booking = (await (await request.get(`/api/v1/reservations/${granted!.reservationId}`, { headers: bearer(waiterToken) })).json()) as BookingView;
  expect(booking.multiNode?.parts.map((part) => part.host.name)).toEqual([free, held]);
});
