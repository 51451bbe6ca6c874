import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { startDisplayServer, type DisplayServer } from "./display-server";
import { hydrated, signedInPageOn } from "./helpers";
import { slurmForTests, useTestSlurm, type TestSlurm } from "../server/testing/slurm-cluster";

/**
 * Admin → Hosts with Slurm underneath (issue 49), on a server of this spec's
 * own against the real Slurm of scripts/slurm/start.sh: the cluster's state
 * (answering, its version and API, the last pass), Slurm's nodes that are
 * gpudesk hosts and those that are none, and each host's Slurm node, which an
 * admin maps there and sees on the page and in /api/health at once.
 */

const root = fileURLToPath(new URL("..", import.meta.url));
const cluster = slurmForTests();
const admin = { username: `slurmadmin${Date.now().toString(36)}`, password: "pw-slurm-admin-long-enough" };
let server: DisplayServer;
let slurm: TestSlurm;

test.skip(!cluster.available && process.env.GPUDESK_TEST_SLURM_REQUIRED !== "1", cluster.reason);

test.beforeAll(async () => {
  test.setTimeout(400_000);
  slurm = await useTestSlurm();
  server = await startDisplayServer({ gpus: 16, env: { GPUDESK_SLURM_URL: slurm.url, GPUDESK_SLURM_JWT_KEY: slurm.jwtKeyFile, GPUDESK_SLURM_USER: slurm.user } });
  const env: NodeJS.ProcessEnv = { ...process.env, GPUDESK_DATA_DIR: server.dataDir };
  delete env.DATABASE_URL;
  const added = spawnSync(process.execPath, [path.join(root, "bin", "gpudesk.js"), "user", "add", admin.username, "--admin", "--password-stdin"], { cwd: root, env, input: admin.password, encoding: "utf8", timeout: 120_000 });
  if (added.status !== 0) throw new Error(`gpudesk user add: ${added.stderr}`);
});

test.afterAll(async () => {
  await server?.dispose();
  slurm?.release();
});

test("Admin → Hosts shows the cluster's state and its nodes, and a host mapped to a Slurm node shows there and in /api/health at once", async ({ browser }) => {
  const page = await signedInPageOn(browser, server.url, admin, { width: 1440, height: 1000 });
  await page.goto("/admin/hosts");
  await hydrated(page);
  const section = page.getByRole("region", { name: "Slurm" });
  await expect(section.getByText("answering", { exact: true })).toBeVisible();
  await expect(section).toContainText(/Slurm 2\d\.\d\d\.\d+ \(API v0\.0\.4\d\) at http:\/\/127\.0\.0\.1:\d+ · last pass/);
  // The simulated hosts are no Slurm nodes: both of Slurm's are "no gpudesk host".
  await expect(section.getByTestId("slurm-mapped")).toHaveText("none");
  await expect(section.getByTestId("slurm-unmapped")).toHaveText("slurm-a, slurm-b");

  const { hosts } = (await (await page.request.get("/api/v1/hosts")).json()) as { hosts: { id: string; name: string }[] };
  const host = hosts[0]!;
  const form = page.getByRole("form", { name: `Slurm node of ${host.name}` });
  await form.getByLabel(`Slurm NodeName of ${host.name}`).fill("slurm-a");
  await form.getByRole("button", { name: "Map" }).click();
  await expect(form.getByRole("button", { name: "Map" })).toBeDisabled();

  await page.reload();
  await expect(section.getByTestId("slurm-mapped")).toHaveText(`slurm-a (${host.name})`);
  await expect(section.getByTestId("slurm-unmapped")).toHaveText("slurm-b");
  await expect(page.getByLabel(`Slurm NodeName of ${host.name}`)).toHaveValue("slurm-a");

  const health = (await (await page.request.get("/api/health")).json()) as { slurm: Record<string, unknown> };
  expect(health.slurm).toMatchObject({ state: "up", nodes: { mapped: 1, unmapped: 1 }, url: slurm.url, nodeNames: { mapped: [{ node: "slurm-a", host: host.name }], unmapped: ["slurm-b"] } });
  const anonymous = (await (await fetch(`${server.url}/api/health`)).json()) as { slurm: Record<string, unknown> };
  expect(anonymous.slurm).toMatchObject({ state: "up", nodes: { mapped: 1, unmapped: 1 } });
  expect(anonymous.slurm.url).toBeUndefined();
});
