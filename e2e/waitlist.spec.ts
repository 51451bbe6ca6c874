import { expect, test } from "@playwright/test";
import { E2E_ORIGIN, createUser, gpudesk, releaseEverything, signIn, tokenFor } from "./helpers";

/**
 * Dynamic allocation in the browser: "any N GPUs" explains its choice; when
 * nothing is free, "Queue me" puts the person in the visible queue with an
 * estimated start, and the moment the GPUs free up they are booked for them
 * and the page they have open says so.
 */

// Four GPUs: GPU 0 runs a simulated notebook now and then (never handed out while it runs), GPUs 1 and 2 are
// always idle, GPU 3 is held by a demo booking.
const HOST = "sim-4090-a";

test.setTimeout(150_000);

/** The people of the running test, whose bookings and waiting requests are given back whatever happens. */
const tokens: string[] = [];
test.afterEach(async ({ request }) => {
  for (const token of tokens.splice(0)) await releaseEverything(request, token);
});

test("any N GPUs explains the choice; queue me waits with a place and an estimate, and is told live when granted", async ({ browser, request }) => {
  const bookedBy = await createUser("bookedBy");
  const waiter = await createUser("waiter");
  const bookerToken = (await tokenFor(bookedBy));
  tokens.push(bookerToken, (await tokenFor(waiter)));
  const auth = { authorization: `Bearer ${bookerToken}` };

  // Auto-pick: the idle GPU, with the reason.
  const picked = await request.post("/api/v1/reservations", { headers: auth, data: { count: 1, host: HOST, durationMinutes: 30, purpose: "auto-pick" } });
  expect(picked.status(), await picked.text()).toBe(201);
  const auto = (await picked.json()) as { id: string; gpus: { index: number }[]; explanation: string };
  expect(auto.gpus).toHaveLength(1);
  expect(auto.explanation).toMatch(new RegExp(`^${auto.gpus[0].index} on ${HOST}: idle, \\d+ GiB free or more$`));
  expect((await request.post(`/api/v1/reservations/${auto.id}/release`, { headers: auth })).ok()).toBe(true);

  // The booker takes the whole host for an hour.
  const held = await request.post("/api/v1/reservations", { headers: auth, data: { host: HOST, gpus: [0, 1, 2], durationMinutes: 60, purpose: "holds the host", allowBusy: true } });
  expect(held.status(), await held.text()).toBe(201);
  const holding = (await held.json()) as { id: string; endsAt: string };

  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, waiter);
  await page.goto(`/reserve?count=1&host=${HOST}`);
  await page.getByText("1 hour", { exact: true }).click();
  await page.getByLabel("Purpose").fill("queued eval");
  await page.getByLabel(/Queue me if none are free now/).check();
  await page.screenshot({ path: test.info().outputPath("reserve-queue-me.png"), fullPage: true });
  await page.getByRole("button", { name: "Book" }).click();
  await expect(page.getByRole("heading", { name: /You are number \d+ in the queue/ })).toBeVisible();
  await expect(page.getByText(/Estimated start:/)).toBeVisible();

  // While a request waits, the page keeps a /live connection for the grant: the release below
  // must come after the server has taken that connection in (socket.io's CONNECT answer on /live),
  // or the notice goes out before anyone listens and only the 20 s poll would tell.
  // The answer comes over HTTP long-polling (socket.io starts there) or a websocket frame.
  const listening = new Promise<void>((resolve) => {
    const seen = (text: string) => {
      if (text.includes("40/live")) resolve();
    };
    page.on("websocket", (socket) => socket.on("framereceived", (frame) => seen(String(frame.payload))));
    page.on("response", (response) => {
      if (response.url().includes("/socket.io/")) response.text().then(seen, () => undefined);
    });
  });
  await page.goto("/queue");
  const mine = page.locator('[data-testid="queue-row"][data-mine="true"]');
  await expect(mine).toHaveCount(1);
  await expect(mine).toContainText(`1 GPU on ${HOST} for 1 h · queued eval`);
  // The estimate is the booker's end time, in the viewer's words ("~today 14:05").
  await expect(mine.getByRole("cell").nth(3)).toContainText("~");
  await page.screenshot({ path: test.info().outputPath("queue.png"), fullPage: true });

  // The booker is done early: the waiter's page says so at once, without a reload.
  await listening;
  expect((await request.post(`/api/v1/reservations/${holding.id}/release`, { headers: auth })).ok()).toBe(true);
  await expect(page.getByTestId("grant-toast")).toContainText(new RegExp(`GPU [012] on ${HOST}`), { timeout: 20_000 });
  await expect(page.getByTestId("grant-toast")).toContainText("queued eval");
  await expect(mine).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath("granted.png"), fullPage: true });

  // It is a real booking of the waiter's, active now.
  const listed = await page.request.get("/api/v1/reservations?state=current");
  const { reservations: bookings } = (await listed.json()) as { reservations: { id: string; purpose: string; state: string; host: { name: string } }[] };
  const granted = bookings.find((booking) => booking.purpose === "queued eval");
  expect(granted).toMatchObject({ state: "active", host: { name: HOST } });
  await expect(page.getByTestId("grant-toast").getByRole("link", { name: "Launch settings" })).toHaveAttribute("href", "/reservations");
  // Released (here through the API, as from another tab): "Your GPUs are ready" is no longer true, and the toast goes with the booking.
  const released = await page.request.post(`/api/v1/reservations/${granted?.id}/release`, { headers: { origin: E2E_ORIGIN } });
  expect(released.ok()).toBe(true);
  await expect(page.getByTestId("grant-toast")).toHaveCount(0, { timeout: 15_000 });
  await context.close();
});

test("a request that waits for work without a booking says who runs it, not a time that slides with the clock", async ({ page, request }) => {
  const waiter = await createUser("unbookedwait");
  const token = (await tokenFor(waiter));
  const auth = { authorization: `Bearer ${token}` };
  // sim-a100-a: GPUs 0 and 1 train and GPU 2 runs a notebook, all without a booking; four GPUs cannot be promised.
  const joined = await request.post("/api/v1/waitlist", { headers: auth, data: { count: 4, host: "sim-a100-a", durationMinutes: 30, purpose: "whole a100 host" } });
  expect(joined.status(), await joined.text()).toBe(201);
  const entry = (await joined.json()) as { id: string };
  try {
    const view = (await (await request.get(`/api/v1/waitlist/${entry.id}`, { headers: auth })).json()) as {
      estimatedStartAt: string | null;
      waitsForUnbookedWork: { gpus: { hostName: string; index: number }[]; people: string[] } | null;
    };
    expect(view.estimatedStartAt).toBeNull();
    expect(view.waitsForUnbookedWork?.gpus).toEqual(expect.arrayContaining([{ hostName: "sim-a100-a", index: 0 }, { hostName: "sim-a100-a", index: 1 }]));
    expect(view.waitsForUnbookedWork?.people.length).toBeGreaterThan(0);

    await signIn(page, waiter);
    await page.goto("/queue");
    const mine = page.locator('[data-testid="queue-row"][data-mine="true"]');
    await expect(mine.getByTestId("waits-for-unbooked")).toContainText(/^Waits for work without a booking to end \(.+ on sim-a100-a GPUs? 0(, 1|–\d)/);
    await expect(mine).not.toContainText("any moment");
    await page.screenshot({ path: "test-results/screens/queue-unbooked-work.png", fullPage: true });
  } finally {
    await request.delete(`/api/v1/waitlist/${entry.id}`, { headers: auth });
  }
});

test("a grant found on opening a page follows the person's choice of page notices", async ({ browser, request }) => {
  const bookedBy = await createUser("quietbooker");
  const waiter = await createUser("quietwaiter");
  const bookerToken = (await tokenFor(bookedBy));
  const waiterToken = (await tokenFor(waiter));
  tokens.push(bookerToken, waiterToken);
  const asWaiter = { authorization: `Bearer ${waiterToken}` };
  const choose = async (onPage: boolean) =>
    expect((await request.patch("/api/v1/me/notifications", { headers: asWaiter, data: { preferences: [{ event: "waitlist.granted", onPage, byMail: false }] } })).ok()).toBe(true);
  await choose(false);

  // Granted while the waiter has no page open.
  const held = await request.post("/api/v1/reservations", { headers: { authorization: `Bearer ${bookerToken}` }, data: { host: HOST, gpus: [0, 1, 2], durationMinutes: 60, purpose: "holds the host", allowBusy: true } });
  expect(held.status(), await held.text()).toBe(201);
  const joined = await request.post("/api/v1/waitlist", { headers: asWaiter, data: { count: 1, host: HOST, durationMinutes: 30, purpose: "quiet grant" } });
  expect(joined.status(), await joined.text()).toBe(201);
  expect((await request.post(`/api/v1/reservations/${((await held.json()) as { id: string }).id}/release`, { headers: { authorization: `Bearer ${bookerToken}` } })).ok()).toBe(true);
  await expect
    .poll(async () => ((await (await request.get("/api/v1/waitlist?mine=1", { headers: asWaiter })).json()) as { waiting: { status: string }[] }).waiting.map((entry) => entry.status), { timeout: 30_000 })
    .toContain("granted");

  // Page notices off: the page reads the grant back and says nothing.
  const quiet = await browser.newContext();
  const page = await quiet.newPage();
  await signIn(page, waiter);
  const readBack = Promise.all([
    page.waitForResponse((response) => response.url().includes("/api/v1/waitlist?mine=1")),
    page.waitForResponse((response) => response.url().includes("/api/v1/me/notifications")),
  ]);
  await page.goto("/reservations");
  await readBack;
  await expect(page.getByText("quiet grant").first()).toBeVisible();
  await expect(page.getByTestId("grant-toast")).toHaveCount(0);
  await quiet.close();

  // Turned back on, a browser that has not shown it yet does.
  await choose(true);
  const loud = await browser.newContext();
  const again = await loud.newPage();
  await signIn(again, waiter);
  await again.goto("/reservations");
  await expect(again.getByTestId("grant-toast")).toContainText("quiet grant");
  await loud.close();
});

/** The share of a 390×844 screen that what matches covers (boxes clipped to the screen, overlaps counted twice: an upper bound). */
async function screenShare(page: import("@playwright/test").Page, selector: string): Promise<number> {
  return page.evaluate((css) => {
    const { innerWidth: width, innerHeight: height } = window;
    let covered = 0;
    for (const element of document.querySelectorAll(css)) {
      const box = element.getBoundingClientRect();
      const w = Math.max(0, Math.min(box.right, width) - Math.max(box.left, 0));
      const h = Math.max(0, Math.min(box.bottom, height) - Math.max(box.top, 0));
      covered += w * h;
    }
    return covered / (width * height);
  }, selector);
}

test("on a phone the waiting notice and the GPUs-ready toast are slim bars with their details a tap away", async ({ browser, request }) => {
  const bookedBy = await createUser("phonebooker");
  const waiter = await createUser("phonewaiter");
  const bookerToken = await tokenFor(bookedBy);
  const waiterToken = await tokenFor(waiter);
  tokens.push(bookerToken, waiterToken);
  const held = await request.post("/api/v1/reservations", {
    headers: { authorization: `Bearer ${bookerToken}` },
    data: { host: HOST, gpus: [0, 1, 2], durationMinutes: 60, purpose: "holds the host", allowBusy: true },
  });
  expect(held.status(), await held.text()).toBe(201);
  const holding = (await held.json()) as { id: string };
  const queued = await request.post("/api/v1/waitlist", {
    headers: { authorization: `Bearer ${waiterToken}` },
    data: { host: HOST, count: 1, durationMinutes: 30, purpose: "phone queue with a purpose long enough to wrap on a phone" },
  });
  expect(queued.status(), await queued.text()).toBe(201);

  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await signIn(page, waiter);
  await page.goto("/reservations");
  const waiting = page.getByTestId("waiting-notice");
  await expect(waiting).toContainText("phone queue");
  await page.screenshot({ path: "test-results/screens/notice-waiting-390x844.png" });
  expect(await screenShare(page, "[data-testid='notice-stack']")).toBeLessThanOrEqual(0.15);
  // The whole notice is one tap away, and another tap folds it again.
  await waiting.getByRole("button", { name: "Details" }).click();
  await expect(waiting.getByRole("link", { name: "Queue" })).toBeInViewport();
  await page.screenshot({ path: "test-results/screens/notice-waiting-open-390x844.png" });
  await waiting.getByRole("button", { name: "Less" }).click();
  expect(await screenShare(page, "[data-testid='notice-stack']")).toBeLessThanOrEqual(0.15);

  expect((await request.post(`/api/v1/reservations/${holding.id}/release`, { headers: { authorization: `Bearer ${bookerToken}` } })).ok()).toBe(true);
  const toast = page.getByTestId("grant-toast");
  // The grant comes with the next waitlist pass or the page's 20 s poll, whichever is first.
  await expect(toast).toContainText("phone queue", { timeout: 45_000 });
  await page.screenshot({ path: "test-results/screens/notice-grant-390x844.png" });
  expect(await screenShare(page, "[data-testid='notice-stack']")).toBeLessThanOrEqual(0.15);
  await toast.getByRole("button", { name: "Dismiss" }).click();
  await expect(toast).toHaveCount(0);
  await context.close();
});
