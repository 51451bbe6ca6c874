import { expect, test } from "@playwright/test";
import { addHost, admin, E2E_ORIGIN, fakeNvidiaSmi, gpudesk, member, ownH200Fixture, signIn, startAgent, uniqueHostName } from "./helpers";

test.beforeEach(async ({ page }) => {
  await signIn(page, (await member()));
});

test("a separately started agent appears as a new host within seconds and goes offline when killed", async ({ page, baseURL }) => {
  const hostName = uniqueHostName("e2e-node");
  const hostToken = await addHost(hostName);
  const token = hostToken;
  expect(token).toMatch(/^gpd_host_/);

  await page.goto("/");
  await expect(page.getByRole("region", { name: "Host sim-h100-a" })).toBeVisible();
  await expect(page.getByRole("region", { name: `Host ${hostName}` })).toHaveCount(0);

  const agent = startAgent(["--server", baseURL!, "--nvidia-smi", fakeNvidiaSmi, "--host-name", hostName], {
    GPUDESK_AGENT_TOKEN: token,
  });
  try {
    const section = page.getByRole("region", { name: `Host ${hostName}` });
    await expect(section).toBeVisible({ timeout: 20_000 });
    await expect(section.getByTestId("host-status")).toHaveText("online");
    const card = section.getByRole("article", { name: `GPU 0 on ${hostName}` });
    await expect(card).toContainText("NVIDIA H200");
    await expect(card.getByTestId("gpu-memory")).toContainText("140.4 GiB");
  } finally {
    agent.kill("SIGKILL");
  }
  await expect(page.getByRole("region", { name: `Host ${hostName}` }).getByTestId("host-status")).toHaveText("offline", {
    timeout: 15_000,
  });
});

test("an agent with a wrong token is refused and nothing appears", async ({ page, baseURL }) => {
  const hostName = uniqueHostName("e2e-intruder");
  const agent = startAgent(["--server", baseURL!, "--nvidia-smi", fakeNvidiaSmi, "--host-name", hostName], {
    GPUDESK_AGENT_TOKEN: "gpd_host_forged-token",
  });
  let log = "";
  agent.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  try {
    await expect.poll(() => log, { timeout: 15_000 }).toContain("unknown host token");
    await page.goto("/");
    await expect(page.getByRole("region", { name: "Host sim-h100-a" })).toBeVisible();
    await expect(page.getByRole("region", { name: `Host ${hostName}` })).toHaveCount(0);
  } finally {
    agent.kill("SIGKILL");
  }
});

test("rotating a host's token drops its running agent and refuses the old token", async ({ page, browser, baseURL }) => {
  test.setTimeout(150_000);
  const hostName = uniqueHostName("e2e-rotated");
  const hostToken = await addHost(hostName);
  const agent = startAgent(["--server", baseURL!, "--nvidia-smi", fakeNvidiaSmi, "--host-name", hostName], {
    GPUDESK_AGENT_TOKEN: hostToken,
    FAKE_NVIDIA_SMI_DIR: ownH200Fixture(),
  });
  let log = "";
  agent.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const adminContext = await browser.newContext();
  try {
    await page.goto("/");
    const status = page.getByRole("region", { name: `Host ${hostName}` }).getByTestId("host-status");
    await expect(status).toHaveText("online", { timeout: 20_000 });

    const adminPage = await adminContext.newPage();
    await signIn(adminPage, (await admin()));
    const hosts = (await (await adminPage.request.get("/api/v1/hosts")).json()) as { hosts: { id: string; name: string }[] };
    const id = hosts.hosts.find((host) => host.name === hostName)!.id;
    const rotated = await adminPage.request.post(`/api/v1/hosts/${id}/rotate`, { headers: { origin: E2E_ORIGIN } });
    expect(rotated.status()).toBe(200);

    // The agent still runs with the old token: it is dropped, its reconnection refused, and the host goes offline.
    await expect.poll(() => log, { timeout: 30_000 }).toContain("unknown host token");
    await expect(status).toHaveText("offline", { timeout: 30_000 });
  } finally {
    agent.kill("SIGKILL");
    await adminContext.close();
  }
});
