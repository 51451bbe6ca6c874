import { spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { addPerson, startDisplayServer, type DisplayServer } from "./display-server";
import { fakeNvidiaSmi, ownH200Fixture, signedInPageOn, startAgent } from "./helpers";

/**
 * From the demo to the lab in one step, on a fresh server of this spec's own
 * (the README's first start: the simulated fleet and its demo people): the
 * first admin, made on the command line, is told to choose and is asked on
 * the fleet page; a real host already reports and a researcher books it.
 * "This is the lab": no demo person can sign in or own a Unix login, no demo
 * alert is open, the real host's booking is untouched, and a restart keeps
 * all of it so.
 */

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = path.join(root, "bin", "gpudesk.js");
const shots = process.env.SHOTS_DIR ?? "test-results/screens";

function gpudeskOn(dataDir: string, args: string[], input?: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, GPUDESK_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  return spawnSync(process.execPath, [cli, ...args], { cwd: root, env, input, encoding: "utf8", timeout: 120_000 });
}

async function json<T>(request: APIRequestContext, url: string): Promise<T> {
  const response = await request.get(url);
  expect(response.status(), `${url}: ${await response.text()}`).toBe(200);
  return (await response.json()) as T;
}

interface FleetAnswer {
  hosts: { name: string; simulated: boolean; online: boolean }[];
}

let server: DisplayServer;
let agent: ChildProcess | null = null;
const admin = { username: `firstadmin${Date.now().toString(36)}`, password: "pw-first-admin-long-enough" };
const researcher = { username: `researcher${Date.now().toString(36)}`, password: "pw-researcher-long-enough" };
const realHost = `lab-h200-${Date.now().toString(36)}`;

test.beforeAll(async () => {
  test.setTimeout(420_000);
  mkdirSync(shots, { recursive: true });
  server = await startDisplayServer({ env: { GPUDESK_DEMO: "ask", GPUDESK_ALERT_CONFLICT_AFTER: "3s", GPUDESK_ALERT_IDLE_AFTER: "5s" } });
});
test.afterAll(async () => {
  agent?.kill("SIGTERM");
  await server?.dispose();
});

test("the first admin chooses the lab: the demo ends for good and the real host's booking is untouched", async ({ browser }) => {
  test.setTimeout(300_000);
  // The first admin, on the command line as the README says: told to choose.
  const made = gpudeskOn(server.dataDir, ["user", "add", admin.username, "--admin", "--password-stdin"], admin.password);
  expect(made.status, made.stderr).toBe(0);
  expect(made.stderr).toContain("gpudesk demo off");
  addPerson(server.dataDir, researcher);

  // A real host reports, and a researcher books its GPU.
  const added = gpudeskOn(server.dataDir, ["host", "add", realHost]);
  expect(added.status, added.stderr).toBe(0);
  agent = startAgent(["--server", server.url, "--nvidia-smi", fakeNvidiaSmi, "--host-name", realHost, "--interval", "500ms"], {
    GPUDESK_AGENT_TOKEN: added.stdout.trim(),
    FAKE_NVIDIA_SMI_DIR: ownH200Fixture(),
  });
  const booker = await signedInPageOn(browser, server.url, researcher, { width: 1280, height: 800 });
  let booking: { id: string; endsAt: string } | null = null;
  await expect
    .poll(async () => {
      const response = await booker.request.post("/api/v1/reservations", {
        data: { host: realHost, gpus: [0], durationMinutes: 120, purpose: "real work" },
        headers: { origin: server.url },
      });
      if (response.status() === 201) booking = (await response.json()) as { id: string; endsAt: string };
      return response.status();
    }, { timeout: 60_000, intervals: [1000] })
    .toBe(201);

  const page = await signedInPageOn(browser, server.url, admin, { width: 1440, height: 900 });
  const before = await json<FleetAnswer>(page.request, "/api/v1/fleet");
  expect(before.hosts.filter((host) => host.simulated).length).toBeGreaterThan(0);
  // The demo's alerts open (its conflict after 3 s here, as on the shared e2e server).
  await expect.poll(async () => (await json<{ alerts: unknown[] }>(page.request, "/api/v1/alerts")).alerts.length, { timeout: 60_000 }).toBeGreaterThan(0);

  // The question, on the fleet page.
  await page.goto("/");
  const question = page.getByRole("region", { name: "Is this server a demo, or your lab?" });
  await expect(question).toBeVisible({ timeout: 30_000 });
  await expect(question).toContainText("1 real host reports here already");
  await page.screenshot({ path: `${shots}/demo-or-lab-question.png` });
  await expect(page.getByRole("banner").getByText("Simulated", { exact: false })).toBeVisible();
  await question.getByRole("button", { name: "This is the lab" }).click();
  const said = page.getByRole("status", { name: "Demo or lab" });
  await expect(said).toContainText("The demo is over");
  await expect(said).toContainText("Real hosts and their bookings are as they were.");
  // The open page stops saying "Simulated fleet" at once, and a reload does not bring it back.
  const badge = page.getByRole("banner").getByText("Simulated", { exact: false });
  await expect(badge).toHaveCount(0, { timeout: 15_000 });
  await page.screenshot({ path: `${shots}/demo-or-lab-done.png` });

  async function expectTheLab(): Promise<void> {
    // The simulated fleet is gone from the live fleet; the real host stays.
    await expect
      .poll(async () => (await json<FleetAnswer>(page.request, "/api/v1/fleet")).hosts.map((host) => host.name), { timeout: 30_000 })
      .toEqual([realHost]);
    // No demo alert open: every open alert is about the real host, if any.
    const open = await json<{ alerts: { host: { name: string } | null; message: string }[] }>(page.request, "/api/v1/alerts");
    expect(open.alerts.filter((alert) => alert.host?.name !== realHost)).toEqual([]);
    // The demo people: disabled, without a Unix login; still listed (past usage names them).
    const { users } = await json<{ users: { username: string; simulated: boolean; disabled: boolean; unixLogin: string | null }[] }>(page.request, "/api/v1/users");
    const demoPeople = users.filter((user) => user.simulated);
    expect(demoPeople.map((user) => user.username).sort()).toEqual(["alice", "bob", "carol", "dave", "erin", "frank"]);
    expect(demoPeople.every((user) => user.disabled && user.unixLogin === null)).toBe(true);
    // The real booking: active, its end as it was.
    const kept = await json<{ state: string; endsAt: string }>(booker.request, `/api/v1/reservations/${booking!.id}`);
    expect(kept).toMatchObject({ state: "active", endsAt: booking!.endsAt });
    expect((await json<{ choice: string; ask: boolean }>(page.request, "/api/v1/demo"))).toMatchObject({ choice: "lab", ask: false });
  }
  await expectTheLab();
  await page.reload();
  await expect(page.getByRole("heading", { level: 1, name: "Fleet" })).toBeVisible();
  await expect(page.locator(`section[aria-label='Host ${realHost}']`)).toBeVisible({ timeout: 30_000 });
  await expect(badge).toHaveCount(0);

  // A demo login is nobody's now: a real person takes "alice" without a take-over.
  const alice = await page.request.post("/api/v1/users", {
    data: { username: "alice.real", password: "pw-alice-real-long-enough", unixLogin: "alice" },
    headers: { origin: server.url },
  });
  expect(alice.status(), await alice.text()).toBe(201);
  // A demo person cannot sign in, even with a password an admin sets.
  const reset = gpudeskOn(server.dataDir, ["user", "set-password", "bob", "--password-stdin"], "pw-bob-long-enough-now");
  const bobSignIn = await browser.newContext({ baseURL: server.url }).then((context) =>
    context.request.post("/api/auth/sign-in/username", { data: { username: "bob", password: "pw-bob-long-enough-now" }, headers: { origin: server.url } }),
  );
  expect(bobSignIn.ok(), `bob signed in (set-password said: ${reset.status} ${reset.stderr})`).toBe(false);

  // A restart keeps it so: the simulated fleet does not come back.
  await server.stop();
  await server.restart();
  await expectTheLab();
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Fleet" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Is this server a demo, or your lab?" })).toHaveCount(0);
});
