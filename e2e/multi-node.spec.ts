import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { admin, createUser, E2E_ORIGIN, releaseEverything, signedInAt, startIbHosts, tokenFor, uniqueHostName } from "./helpers";

/**
 * One booking across nodes, end to end: three GPU hosts with real agents (a
 * fake nvidia-smi with one H200 each, and a fake /sys/class/infiniband: two
 * on one InfiniBand subnet, one on another). A member books "Across nodes"
 * in the form, 2 nodes × 1 H200, and gets the two hosts of one fabric; then
 * `gpudesk run --booking` on each node starts a small rendezvous program
 * that proves the launch settings agree (both ranks meet at the rendezvous
 * address, each sees its own GPU, world size 2). Screens of the form, the
 * answer, the schedule, the week view, the bookings page and the hosts
 * page go to test-results/screens/multi-node-*.png.
 */

const SHOTS = "test-results/screens";
const root = fileURLToPath(new URL("..", import.meta.url));
const cli = path.join(root, "bin", "gpudesk.js");
const rendezvous = path.join(root, "e2e", "fixtures", "rendezvous.mjs");

/** A subnet prefix of this run: no host of another run or spec shares it. */
const subnet = (Date.now() % 0xffff).toString(16).padStart(4, "0");
const otherSubnet = ((Date.now() + 1) % 0xffff).toString(16).padStart(4, "0");
const names = [uniqueHostName("ib-a"), uniqueHostName("ib-b"), uniqueHostName("eth-c")];
const agents: ChildProcess[] = [];
let token = "";
let person = { username: "", password: "" };

/** `gpudesk run --booking` as a person runs it on a node (`--host-name`: this machine plays that node). */
function runOnNode(booking: string, hostName: string, extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "run", "--booking", booking, "--host-name", hostName, "--", process.execPath, rendezvous], {
      cwd: root,
      env: { ...process.env, GPUDESK_URL: E2E_ORIGIN, GPUDESK_TOKEN: token, RENDEZVOUS_HOSTS: `${names[0]}=127.0.0.1,${names[1]}=127.0.0.1`, ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SHOTS}/multi-node-${name}.png`, fullPage: true });
}

const signedIn = (browser: Browser, viewport: { width: number; height: number }, who = person): Promise<Page> => signedInAt(browser, viewport, who);

test.beforeAll(async ({ request }) => {
  test.setTimeout(120_000);
  person = await createUser("multinode");
  token = await tokenFor(person);
  agents.push(...(await startIbHosts(request, token, [subnet, subnet, otherSubnet].map((prefix, at) => ({ name: names[at], subnet: prefix })))));
});

test.afterAll(async ({ request }) => {
  for (const agent of agents) agent.kill("SIGKILL");
  await releaseEverything(request, token);
});

test("a member books 2 nodes × 1 H200 across nodes, gets one fabric, and both ranks meet through gpudesk run --booking", async ({ browser, request }) => {
  test.setTimeout(240_000);
  mkdirSync(SHOTS, { recursive: true });

  // The form on a phone first, filled in.
  const phone = await signedIn(browser, { width: 390, height: 844 });
  await phone.goto("/reserve");
  await phone.getByRole("radio", { name: "Across nodes" }).click();
  await phone.getByLabel("GPUs per node").fill("1");
  await phone.getByLabel("Model").selectOption("H200");
  await phone.getByRole("textbox", { name: "Purpose" }).fill("llm pretrain across nodes");
  await shoot(phone, "form-390x844");

  const page = await signedIn(browser, { width: 1920, height: 1080 });
  await page.goto("/reserve");
  await page.getByRole("radio", { name: "Across nodes" }).click();
  await expect(page.getByLabel("Host")).toHaveCount(0);
  await page.getByLabel("Nodes", { exact: true }).fill("2");
  await page.getByLabel("GPUs per node").fill("1");
  await page.getByLabel("Model").selectOption("H200");
  await page.getByRole("textbox", { name: "Purpose" }).fill("llm pretrain across nodes");
  // An hour: specs book from now on for at most a couple of hours (e2e/booking-pages.spec.ts books "any GPU" 3 hours ahead).
  await page.getByText("1 hour", { exact: true }).click();
  await shoot(page, "form-1920x1080");
  await page.getByRole("button", { name: "Book", exact: true }).click();

  // The two hosts of one fabric, in name order, each with its own launch lines.
  await expect(page.getByRole("heading", { name: `Booked: 2 × 1 H200 on ${names[0]} and ${names[1]}` })).toBeVisible();
  await expect(page.getByTestId("allocation-explanation")).toContainText(`all on InfiniBand subnet fe80:0000:0000:${subnet}`);
  await expect(page.getByRole("region", { name: `${names[1]}, node 2 of 2` })).toContainText("NODE_RANK=1");
  await expect(page.getByRole("region", { name: `${names[1]}, node 2 of 2` })).toContainText("NCCL_IB_HCA=mlx5_0");
  await shoot(page, "booked-1920x1080");
  const booking = (await page.locator("code", { hasText: "gpudesk run --booking" }).first().textContent())!.match(/--booking (\S+)/)![1];

  // On each node, the same line; each finds its part by the host it runs on.
  const [first, second] = await Promise.all([runOnNode(booking, names[0]), runOnNode(booking, names[1])]);
  expect(first.code, first.stderr).toBe(0);
  expect(second.code, second.stderr).toBe(0);
  const met = (output: string) => JSON.parse(output.split("\n").find((line) => line.startsWith("RDV "))!.slice(4)) as { me: { rank: number; claim: string }; all: { rank: number; worldSize: number; cudaVisibleDevices: string; master: string; claim: string }[] };
  const [one, two] = [met(first.stdout), met(second.stdout)];
  expect(one.all).toEqual(two.all);
  expect(one.all.map((node) => node.rank)).toEqual([0, 1]);
  expect(one.all.every((node) => node.worldSize === 2 && node.cudaVisibleDevices === "0" && node.master === one.all[0].master)).toBe(true);
  expect(one.all[0].master.startsWith(`${names[0]}:`)).toBe(true);
  // Each node's processes prove its own part: two parts, two claims.
  expect(one.all[0].claim.split(".")[0]).toBe(booking);
  expect(one.all[1].claim).not.toBe(one.all[0].claim);
  expect(first.stderr).toContain(`gpudesk: ${names[0]} GPUs 0, node rank 0 of 2`);

  // A machine that holds no part is refused, naming the hosts that do.
  const stranger = await runOnNode(booking, names[2]);
  expect(stranger.code).not.toBe(0);
  expect(stranger.stderr).toContain(`This machine, ${names[2]}, holds no part of booking ${booking} (its hosts: ${names[0]}, ${names[1]})`);

  // The schedule and the week view show each part as a part of the one booking.
  await page.goto("/schedule");
  await expect(page.getByRole("button", { name: new RegExp(`2 × 1 H200, node 1 of 2 · llm pretrain`) }).first()).toBeVisible();
  await shoot(page, "schedule-1920x1080");
  await phone.goto("/schedule");
  await shoot(phone, "schedule-390x844");
  await page.goto(`/schedule?view=week&host=${names[1]}`);
  await expect(page.getByTestId("week-booking").first()).toHaveAttribute("aria-label", /2 × 1 H200, node 2 of 2 · llm pretrain/);
  await shoot(page, "week-1920x1080");
  await phone.goto(`/schedule?view=week&host=${names[1]}`);
  await shoot(phone, "week-390x844");
  await page.goto("/reservations");
  // One card for the booking, with each node's lines.
  await expect(page.getByRole("heading", { name: `2 × 1 H200 on ${names[0]} and ${names[1]}`, exact: true })).toHaveCount(1);
  await expect(page.getByRole("region", { name: `${names[1]}, node 2 of 2` })).toContainText("NODE_RANK=1");
  await shoot(page, "reservations-1920x1080");
  await phone.goto("/reservations");
  await shoot(phone, "reservations-390x844");

  const boss = await signedIn(browser, { width: 1920, height: 1080 }, await admin());
  await boss.goto("/admin/hosts");
  await expect(boss.getByRole("list", { name: `RDMA ports of ${names[0]}` })).toContainText("mlx5_0 port 1: ACTIVE, 200 Gb/s InfiniBand (ib0)");
  await shoot(boss, "hosts-1920x1080");

  // Released through one part, the booking ends on every node.
  const released = await request.post(`/api/v1/reservations/${booking}/release`, { headers: { authorization: `Bearer ${token}` } });
  expect(released.status()).toBe(200);
  const list = (await (await request.get("/api/v1/reservations?state=all", { headers: { authorization: `Bearer ${token}` } })).json()) as { reservations: { state: string; multiNode?: { id: string } }[] };
  const parts = list.reservations.filter((entry) => entry.multiNode?.id === booking);
  expect(parts.map((part) => part.state)).toEqual(["released", "released"]);
});
