import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test, type APIRequestContext } from "@playwright/test";
import type { WaitlistView } from "@/lib/domain/waitlist-schema";
import { simulatedAgentHost } from "@/host/agent/simulated-agent-host";
import { simulatedSnapshotAt } from "@/host/collector/simulated/simulated-source";
import { addHost, admin, createUser, personForMoment, E2E_ORIGIN, idleH200Host, releaseEverything, signIn, startAgent, tokenFor, uniqueHostName, type TestUser } from "./helpers";

/**
 * Why a request waits, told the same way on /queue, in the API and by
 * `gpudesk reserve --wait`: a team's limit with its figures (and raising
 * the limit grants the request within a pass of the queue), and work
 * without a booking with whose it is. Each test runs on hosts of its own
 * (agents it starts), so the shared simulated fleet and other specs'
 * bookings cannot change what it sees.
 */

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = path.join(root, "bin", "gpudesk.js");
const SEED = 42;

// Accounts, tokens and hosts are made with the CLI (several seconds each on a busy machine).
test.setTimeout(300_000);

const tokens: string[] = [];
const children: ChildProcess[] = [];
test.afterEach(async ({ request }) => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const token of tokens.splice(0)) await releaseEverything(request, token);
});

/** The person's API token, given back at the end (see afterEach). */
async function tokenOf(user: TestUser): Promise<string> {
  const token = await tokenFor(user, "e2e queue reasons");
  tokens.push(token);
  return token;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const ownHost = (prefix: string) => idleH200Host(prefix, children);

/** `gpudesk reserve … --wait` as a member runs it; its output as it comes and its exit. */
function reserveAndWait(token: string, args: string[]) {
  const child = spawn(process.execPath, [cli, "reserve", ...args, "--wait", "--json"], {
    cwd: root,
    env: { ...process.env, GPUDESK_URL: E2E_ORIGIN, GPUDESK_TOKEN: token },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return { child, output, exited };
}

async function myRequests(request: APIRequestContext, token: string): Promise<WaitlistView[]> {
  const response = await request.get("/api/v1/waitlist?mine=1", { headers: bearer(token) });
  expect(response.ok()).toBe(true);
  return ((await response.json()) as { waiting: WaitlistView[] }).waiting;
}

test("a request held by its team's limit shows the limit and its figures on /queue and in reserve --wait; raising the limit grants it", async ({ browser, request }) => {
  const suffix = Date.now().toString(36);
  const team = `limited ${suffix}`;
  const bossAuth = bearer(await tokenOf(await admin()));
  const [bookedBy, waiter] = [await createUser("limbooker"), await createUser("limwaiter")];
  const bookerToken = await tokenOf(bookedBy);
  const waiterToken = await tokenOf(waiter);
  const made = await request.post("/api/v1/teams", { headers: bossAuth, data: { name: team, limits: { maxGpus: 1 } } });
  expect(made.status(), await made.text()).toBe(201);
  const teamId = ((await made.json()) as { team: { id: string } }).team.id;
  for (const person of [bookedBy, waiter]) {
    const added = await request.post(`/api/v1/teams/${teamId}/members`, { headers: bossAuth, data: { username: person.username } });
    expect(added.ok(), await added.text()).toBe(true);
  }
  // Two hosts of one idle GPU each: the team's one GPU at once is taken on the first, the second stays free.
  const [taken, free] = [await ownHost("e2e-limit-taken"), await ownHost("e2e-limit-free")];

  let holding = { id: "", endsAt: "" };
  await expect
    .poll(
      async () => {
        const booked = await request.post("/api/v1/reservations", { headers: bearer(bookerToken), data: { host: taken, gpus: [0], durationMinutes: 60, purpose: "holds the team's GPU" } });
        if (booked.status() === 201) holding = (await booked.json()) as typeof holding;
        return booked.status();
      },
      { timeout: 60_000, intervals: [1_000] },
    )
    .toBe(201);
  // The free host must be online with its GPU before the request names it.
  await expect
    .poll(
      async () => {
        const fleet = (await (await request.get("/api/v1/fleet", { headers: bearer(waiterToken) })).json()) as { hosts: { name: string; online: boolean }[] };
        return fleet.hosts.some((host) => host.name === free && host.online);
      },
      { timeout: 60_000 },
    )
    .toBe(true);

  // The waiter asks for the free host's GPU: refused by the limit, then queued; the CLI says why, with the figures.
  const waiting = reserveAndWait(waiterToken, ["-n", "1", "--host", free, "--for", "30m", "--purpose", "held by the limit"]);
  await expect.poll(() => waiting.output.stderr, { timeout: 60_000 }).toContain("waiting for GPUs");
  const [entry] = (await myRequests(request, waiterToken)).filter((item) => item.status === "waiting");
  expect(entry?.waitingBecause).toMatchObject({ kind: "limit", scope: "team", subject: team, limit: "maxGpus", used: 1, max: 1, requested: 1 });
  const because = entry!.waitingBecause!;
  expect(because.message).toContain(`waits for the team ${team}'s limit: 1 of 1 GPUs at once in use, this request asks for 1`);
  // Room frees up when the booker's booking ends, and not before: the estimate is not "now".
  expect(because.kind === "limit" && because.freesAt).toBe(holding.endsAt);
  expect(Date.parse(entry!.estimatedStartAt ?? "")).toBeGreaterThanOrEqual(Date.parse(holding.endsAt));
  // The CLI says the same sentence with its own local times: the part before the time is the server's word for word.
  expect(waiting.output.stderr).toContain(because.message.split("; room from")[0]);

  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, waiter);
  await page.goto("/queue");
  const mine = page.locator('[data-testid="queue-row"][data-mine="true"]').filter({ hasText: "held by the limit" });
  // The page writes the time the viewer's way ("today 15:04"), never the API's UTC beside it.
  const cause = because.message.split("; room from")[0]!;
  await expect(mine.getByTestId("waiting-because")).toContainText(cause.charAt(0).toUpperCase() + cause.slice(1));
  await expect(mine.getByTestId("waiting-because")).not.toContainText("UTC");
  await expect(mine.getByTestId("waiting-because")).toHaveAttribute("data-kind", "limit");
  await expect(mine).not.toContainText("any moment");
  await expect(page.getByTestId("waiting-notice")).toHaveCount(0);
  await page.screenshot({ path: "test-results/screens/queue-team-limit.png", fullPage: true });

  // Elsewhere, a short notice says it, and goes when dismissed (for the rest of the visit).
  await page.goto("/reservations");
  const notice = page.getByTestId("waiting-notice");
  await expect(notice).toContainText("“held by the limit”");
  await expect(notice).toContainText("1 of 1 GPUs at once in use");
  expect((await notice.boundingBox())!.height).toBeLessThan(120);
  await notice.getByRole("button", { name: "Dismiss" }).click();
  await expect(notice).toHaveCount(0);
  const readBack = page.waitForResponse((response) => response.url().includes("/api/v1/waitlist?mine=1"));
  await page.goto("/");
  await readBack;
  await expect(page.getByTestId("waiting-notice")).toHaveCount(0);
  await context.close();

  // The admin raises the limit: the next pass of the queue grants it, and the CLI hands over the booking.
  const raised = await request.patch(`/api/v1/teams/${teamId}`, { headers: bossAuth, data: { limits: { maxGpus: 2 } } });
  expect(raised.ok(), await raised.text()).toBe(true);
  expect(await waiting.exited, waiting.output.stderr).toBe(0);
  expect(waiting.output.stderr).toContain("gpudesk: granted");
  const granted = JSON.parse(waiting.output.stdout) as { host: { name: string }; state: string; purpose: string };
  expect(granted).toMatchObject({ host: { name: free }, state: "active", purpose: "held by the limit" });
});

/**
 * A moment of the simulated past at which one login runs on GPU 0 of the
 * agent's host for the next 15 minutes without a booking: the agent replays
 * the host from there (`--sim-time`), so the test does not depend on the time of day.
 */
function* runnerMoments(hostName: string): Generator<{ at: string; login: string; gpuCount: number }> {
  const { spec, seed } = simulatedAgentHost(hostName, SEED);
  const gpu0 = spec.gpus[0]!.uuid;
  const look = (t: number) => simulatedSnapshotAt(spec, seed, t).processes.find((process) => process.gpuUuid === gpu0)?.user ?? null;
  for (let t = Date.now() - 3 * 86_400_000; t < Date.now() - 20 * 60_000; t += 60_000) {
    const login = look(t);
    if (!login) continue;
    let steady = true;
    for (let dt = 30_000; dt <= 15 * 60_000 && steady; dt += 30_000) steady = look(t + dt) === login;
    if (steady) yield { at: new Date(t).toISOString(), login, gpuCount: spec.gpus.length };
  }
}

test("a request held by work without a booking names whose it is, on /queue, in the API and in reserve --wait", async ({ page, request }) => {
  const hostName = uniqueHostName("e2e-unbooked");
  const runnerName = `Runner ${Date.now().toString(36)}`;
  // The runner: a login no other spec running beside this one has taken.
  const { moment } = await personForMoment("runner", runnerMoments(hostName), { name: runnerName });
  const waiter = await createUser("unbookedwaiter");
  const waiterToken = await tokenOf(waiter);
  const hostToken = await addHost(hostName);
  children.push(
    startAgent(["--server", E2E_ORIGIN, "--source", "simulated", "--seed", String(SEED), "--host-name", hostName, "--sim-time", moment.at], {
      GPUDESK_AGENT_TOKEN: hostToken,
    }),
  );

  // The whole host, while the runner's job holds GPU 0 (joined once the agent has reported its GPUs).
  let entryId = "";
  await expect
    .poll(
      async () => {
        const joined = await request.post("/api/v1/waitlist", { headers: bearer(waiterToken), data: { count: moment.gpuCount, host: hostName, durationMinutes: 30, purpose: "the whole host" } });
        if (joined.status() === 201) entryId = ((await joined.json()) as { id: string }).id;
        return joined.status();
      },
      { timeout: 60_000, intervals: [1_000] },
    )
    .toBe(201);
  let view: WaitlistView | null = null;
  await expect
    .poll(
      async () => {
        view = (await (await request.get(`/api/v1/waitlist/${entryId}`, { headers: bearer(waiterToken) })).json()) as WaitlistView;
        return view.waitingBecause?.kind === "unbooked_use" ? view.waitingBecause.people : [];
      },
      { timeout: 60_000, intervals: [1_000] },
    )
    .toContain(runnerName);
  const because = view!.waitingBecause!;
  expect(because.kind === "unbooked_use" && because.gpus).toContainEqual({ hostName, index: 0 });
  expect(because.message).toMatch(new RegExp(`^waits for work without a booking to end \\(.*${runnerName}.* on ${hostName} GPU 0`));
  expect(view!.estimatedStartAt).toBeNull();

  await signIn(page, waiter);
  await page.goto("/queue");
  const mine = page.locator('[data-testid="queue-row"][data-mine="true"]').filter({ hasText: "the whole host" });
  await expect(mine.getByTestId("waits-for-unbooked")).toContainText(runnerName);
  await expect(mine.getByTestId("waits-for-unbooked")).toContainText(`on ${hostName} GPU 0`);
  await expect(mine).not.toContainText("any moment");
  await page.screenshot({ path: "test-results/screens/queue-unbooked-whose.png", fullPage: true });

  // The CLI says the same when it queues (a second request of the waiter's; interrupted, it leaves the queue).
  const waiting = reserveAndWait(waiterToken, ["-n", String(moment.gpuCount), "--host", hostName, "--for", "30m", "--purpose", "the whole host, from the CLI"]);
  await expect.poll(() => waiting.output.stderr, { timeout: 60_000 }).toContain("waiting for GPUs");
  expect(waiting.output.stderr).toContain(`waits for work without a booking to end (`);
  expect(waiting.output.stderr).toContain(runnerName);
  waiting.child.kill("SIGINT");
  expect(await waiting.exited).not.toBe(0);
  expect(waiting.output.stderr).toContain("left the waitlist");
});
