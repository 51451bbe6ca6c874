import { expect, test } from "@playwright/test";
import { fakeNvidiaSmi, gpudesk, member, signIn, startAgent, uniqueHostName } from "./helpers";

test.beforeEach(async ({ page }) => {
  await signIn(page, member());
});

test("a separately started agent appears as a new host within seconds and goes offline when killed", async ({ page, baseURL }) => {
  const hostName = uniqueHostName("e2e-node");
  const added = gpudesk(["host", "add", hostName]);
  expect(added.status, added.stderr).toBe(0);
  const token = added.stdout.trim();
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
