import { expect, test, type APIRequestContext } from "@playwright/test";
import { addHost, backdateBooking, createUser, fakeNvidiaSmi, gpudesk, ownH200Fixture, releaseEverything, setGpuReading, signIn, startAgent, uniqueHostName, admin, type TestUser, tokenFor } from "./helpers";

/**
 * Idle release with a short policy (released after 3 idle minutes, warned
 * 2 minutes before, one keep), on a host of this spec's own, fed by the fake
 * nvidia-smi: the booker's open page shows the warning with its Keep
 * button; a booking left idle is released on time and a waiting request for
 * its GPU is granted; a booking whose GPU gets busy during the warning is
 * kept. Every other host is exempt while the short policy stands, so the
 * shared server's other bookings are left alone; the policy and the
 * exemptions are put back at the end (which is why this spec runs in the
 * "serial" project, alone). The idle minutes before each phase are stored
 * by the spec (backdateBooking), as if they had passed: each phase then
 * waits for at most the minute under way, not for the whole window.
 */

const RELEASE_AFTER = 3;
const WARNING = 2;
/** How often the leader's idle pass runs (server/idle-release/idle-runner.ts). */
const IDLE_PASS_MS = 30_000;
const IDLE = { reading: { utilPct: 0, memUsedMiB: 0 } } as const;

/**
 * Where a phase's release comes at the end of the minute under way, leaves
 * at least 20 s of it for the checks before the release: a short wait for
 * the next minute rather than a race with the release.
 */
async function minuteWithRoomLeft(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 500));
}
/**
 * How long the spec waits at most for a phase: a deadline for a broken
 * server, not a claim about speed. "On time" is asserted from the server's
 * own times (idle since + 2 minutes), with a bound that only a release
 * that waited for something else would miss.
 */
const PHASE_DEADLINE_MS = 150_000;
const ON_TIME_SLACK_MS = 90_000;

async function api<T>(request: APIRequestContext, token: string, method: string, url: string, data?: unknown): Promise<{ status: number; body: T }> {
  const response = await request.fetch(url, { method, data, headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  return { status: response.status(), body: (text ? JSON.parse(text) : null) as T };
}

interface Booking {
  id: string;
  state: string;
  releasedBecause: string | null;
  endsAt: string;
  idle: { phase: string; idleSince: string; releaseAt: string | null; keepsLeft: number } | null;
}

const DEFAULTS = { idleReleaseAfterMinutes: 120, idleWarningMinutes: 30, idleBelowPct: 5, idleKeepsPerBooking: 1, idleReportOnly: false };

/** The short policy, and every other host exempt; returns what puts things back. */
async function shortPolicy(request: APIRequestContext, adminToken: string, ownHost: string): Promise<() => Promise<void>> {
  const policy = await api<{ maxDurationMinutes: number; maxGpusPerUser: number; maxAdvanceDays: number }>(request, adminToken, "GET", "/api/v1/policies");
  const base = { maxDurationMinutes: policy.body.maxDurationMinutes, maxGpusPerUser: policy.body.maxGpusPerUser, maxAdvanceDays: policy.body.maxAdvanceDays };
  const fleet = await api<{ hosts: { name: string }[] }>(request, adminToken, "GET", "/api/v1/fleet");
  const exemptions: string[] = [];
  for (const host of fleet.body.hosts.filter((candidate) => candidate.name !== ownHost)) {
    const made = await api<{ id: string }>(request, adminToken, "POST", "/api/v1/idle-exemptions", { kind: "host", subject: host.name, reason: "e2e idle release" });
    if (made.status === 201) exemptions.push(made.body.id);
  }
  const set = await api(request, adminToken, "PUT", "/api/v1/policies", { ...base, idleReleaseAfterMinutes: RELEASE_AFTER, idleWarningMinutes: WARNING, idleBelowPct: 5, idleKeepsPerBooking: 1, idleReportOnly: false });
  expect(set.status).toBe(200);
  return async () => {
    await api(request, adminToken, "PUT", "/api/v1/policies", { ...base, ...DEFAULTS });
    for (const id of exemptions) await api(request, adminToken, "DELETE", `/api/v1/idle-exemptions/${id}`);
  };
}

async function startOwnHost(baseURL: string, prefix: string) {
  const hostName = uniqueHostName(prefix);
  const hostToken = await addHost(hostName);
  const fixture = ownH200Fixture({ memoryUsedMiB: 0, utilizationPct: 0 });
  const agent = startAgent(["--server", baseURL, "--nvidia-smi", fakeNvidiaSmi, "--host-name", hostName], {
    GPUDESK_AGENT_TOKEN: hostToken,
    FAKE_NVIDIA_SMI_DIR: fixture,
    FAKE_NVIDIA_SMI_VARY: "0",
  });
  return { hostName, fixture, agent };
}

async function book(request: APIRequestContext, token: string, hostName: string, purpose: string): Promise<Booking> {
  let booking: { status: number; body: Booking } = { status: 0, body: {} as Booking };
  await expect
    .poll(async () => (booking = await api<Booking>(request, token, "POST", "/api/v1/reservations", { host: hostName, gpus: [0], durationMinutes: 60, purpose })).status, {
      timeout: 60_000,
      intervals: [1000],
    })
    .toBe(201);
  return booking.body;
}

test.describe.configure({ mode: "serial" });

test("an idle booking: the open page warns with Keep, a keep starts the clock again, then it is released on time and the waiting request gets the GPU", async ({ page, request, baseURL }) => {
  test.setTimeout(400_000);
  const bookedBy: TestUser = await createUser("idlebooker");
  const waiter: TestUser = await createUser("idlewaiter");
  const [bookerToken, waiterToken, adminToken] = [(await tokenFor(bookedBy)), (await tokenFor(waiter)), (await tokenFor(await admin()))];
  const own = await startOwnHost(baseURL!, "e2e-idle");
  const restore = await shortPolicy(request, adminToken, own.hostName);
  try {
    const booking = await book(request, bookerToken, own.hostName, "idle e2e");
    // One idle minute of three is behind it: in the warning at once, with a minute or more before the release.
    await backdateBooking(booking.id, RELEASE_AFTER - WARNING, IDLE);
    const waiting = await api<{ id: string }>(request, waiterToken, "POST", "/api/v1/waitlist", { host: own.hostName, count: 1, durationMinutes: 30, purpose: "waiting for the idle GPU" });
    expect(waiting.status).toBe(201);

    await signIn(page, bookedBy);
    await page.goto("/");
    const notice = page.getByTestId("idle-notice");
    await expect(notice).toContainText(new RegExp(`GPU 0 on ${own.hostName}.*Idle since \\d\\d:\\d\\d — released at \\d\\d:\\d\\d unless used`), { timeout: PHASE_DEADLINE_MS });
    await expect(notice).toContainText("You can keep it once more.");
    // The fleet card says it too.
    const card = page.getByRole("article", { name: `GPU 0 on ${own.hostName}` });
    await expect(card.getByTestId("gpu-idle")).toContainText(/^Idle since \d\d:\d\d — released at \d\d:\d\d unless used$/);
    await page.screenshot({ path: "test-results/screens/idle-release-notice.png" });

    // Keep: the clock starts again, the notice goes, the keep is used.
    await notice.getByRole("button", { name: "Keep" }).click();
    await expect(notice).toHaveCount(0);
    // Said back at once: what the keep did and what is left of them.
    await expect(page.getByTestId("idle-kept")).toContainText(`GPU 0 on ${own.hostName}`);
    await expect(page.getByTestId("idle-kept")).toContainText("Kept: the idle clock starts again now.");
    await expect(page.getByTestId("idle-kept")).toContainText("No keeps left");
    await page.screenshot({ path: "test-results/screens/idle-release-kept.png" });
    const kept = await api<Booking>(request, bookerToken, "GET", `/api/v1/reservations/${booking.id}`);
    expect(kept.body.state).toBe("active");

    // The keep was two idle minutes ago: warned again, with no keep left;
    // the notice says so and offers no button.
    await minuteWithRoomLeft();
    await backdateBooking(booking.id, RELEASE_AFTER - 1, { ...IDLE, clock: "keep" });
    await expect(notice).toContainText("No keeps left", { timeout: PHASE_DEADLINE_MS });
    await expect(notice.getByRole("button", { name: "Keep" })).toHaveCount(0);
    const warned = await api<Booking>(request, bookerToken, "GET", `/api/v1/reservations/${booking.id}`);
    expect(warned.body.idle).toMatchObject({ phase: "warning", keepsLeft: 0 });
    const idleSinceMs = Date.parse(warned.body.idle!.idleSince);
    // Warned with one idle minute left of three: the booker still gets the whole 2-minute warning, so the
    // release comes at the time the warning gave, not at idle since + 3 minutes.
    const promisedMs = Date.parse(warned.body.idle!.releaseAt!);
    expect(promisedMs).toBeGreaterThanOrEqual(idleSinceMs + RELEASE_AFTER * 60_000);

    // Released: state and reason, at the warned time by the server's own clock.
    let released: Booking = warned.body;
    await expect
      .poll(async () => (released = (await api<Booking>(request, bookerToken, "GET", `/api/v1/reservations/${booking.id}`)).body).state, { timeout: PHASE_DEADLINE_MS + WARNING * 60_000, intervals: [2000] })
      .toBe("released");
    expect(released.releasedBecause).toBe("idle");
    const releasedAtMs = Date.parse(released.endsAt);
    expect(releasedAtMs).toBeGreaterThanOrEqual(promisedMs);
    expect(releasedAtMs - promisedMs).toBeLessThan(ON_TIME_SLACK_MS);

    // The waiting request is served at once.
    await expect
      .poll(async () => (await api<{ status: string }>(request, waiterToken, "GET", `/api/v1/waitlist/${waiting.body.id}`)).body.status, { timeout: 60_000, intervals: [1000] })
      .toBe("granted");

    // The booker's page tells it; the booking says why it ended. The minutes told are those it really sat idle, from
    // idle since to the release: warned with one minute left, it sat the whole warning too, so more than the policy's three.
    const told = released.idle?.releaseAt ? released.idle : warned.body.idle!;
    const idleMinutes = Math.round((Date.parse(told.releaseAt!) - Date.parse(told.idleSince)) / 60_000);
    expect(idleMinutes).toBeGreaterThanOrEqual(RELEASE_AFTER);
    await expect(notice).toContainText(new RegExp(`Released after ${idleMinutes} min idle at \\d\\d:\\d\\d`));
    await page.goto("/reservations");
    await expect(page.getByTestId("idle-status")).toContainText(new RegExp(`Released after ${idleMinutes} min idle at \\d\\d:\\d\\d`));
    await page.screenshot({ path: "test-results/screens/idle-release-released.png", fullPage: true });

    // /admin/usage: the GPU-hours handed back, with the booker's share.
    await signIn(page, (await admin()));
    await page.goto("/admin/usage");
    const handedBack = page.getByTestId("handed-back");
    await expect(handedBack).toContainText("Handed back by idle release");
    await expect(handedBack).toContainText(bookedBy.username);
    await handedBack.scrollIntoViewIfNeeded();
    await page.screenshot({ path: "test-results/screens/idle-release-usage.png", fullPage: true });
  } finally {
    own.agent.kill("SIGKILL");
    await restore();
    await releaseEverything(request, bookerToken);
    await releaseEverything(request, waiterToken);
  }
});

test("a booking whose GPU gets busy during the warning is kept", async ({ request, baseURL }) => {
  test.setTimeout(400_000);
  const bookedBy = await createUser("idlebusy");
  const [bookerToken, adminToken] = [(await tokenFor(bookedBy)), (await tokenFor(await admin()))];
  const own = await startOwnHost(baseURL!, "e2e-idle-busy");
  const restore = await shortPolicy(request, adminToken, own.hostName);
  try {
    const booking = await book(request, bookerToken, own.hostName, "busy during the warning");
    // Two idle minutes of three are behind it: warned, released when this minute ends unless used.
    await minuteWithRoomLeft();
    await backdateBooking(booking.id, RELEASE_AFTER - 1, IDLE);
    let view: Booking | null = null;
    await expect
      .poll(async () => (view = (await api<Booking>(request, bookerToken, "GET", `/api/v1/reservations/${booking.id}`)).body).idle?.phase ?? "none", { timeout: PHASE_DEADLINE_MS, intervals: [2000] })
      .toBe("warning");
    const releaseAtMs = Date.parse(view!.idle!.releaseAt!);

    // The job starts: 80 % from now on.
    setGpuReading(own.fixture, { memoryUsedMiB: 30_000, utilizationPct: 80 });
    // The positive signal that the rule saw it: the stored minutes no longer make the booking idle.
    await expect
      .poll(async () => (await api<Booking>(request, bookerToken, "GET", `/api/v1/reservations/${booking.id}`)).body.idle, { timeout: PHASE_DEADLINE_MS, intervals: [2000] })
      .toBeNull();
    // And well past the announced release (and a pass of the leader after it), it still runs.
    // The announced release may lie a whole warning ahead (a late warning gets its full time), so the wait is measured from it.
    const pastRelease = releaseAtMs + IDLE_PASS_MS + 15_000;
    await expect.poll(() => Date.now(), { timeout: Math.max(PHASE_DEADLINE_MS, pastRelease - Date.now() + 10_000), intervals: [5000] }).toBeGreaterThan(pastRelease);
    const after = await api<Booking>(request, bookerToken, "GET", `/api/v1/reservations/${booking.id}`);
    expect(after.body).toMatchObject({ state: "active", releasedBecause: null });
  } finally {
    own.agent.kill("SIGKILL");
    await restore();
    await releaseEverything(request, bookerToken);
  }
});
