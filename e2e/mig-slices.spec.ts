import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { addHost, createUser, E2E_ORIGIN, fakeNvidiaSmi, gpudesk, member, ownH100MigFixture, signIn, startAgent, uniqueHostName } from "./helpers";

/**
 * A held-out agent reads the real H100 MIG recording (3g.40gb + 2g.20gb +
 * 1g.10gb + 1g.10gb, three processes in the 3g.40gb) through the fake
 * nvidia-smi; a member books a 1g.10gb slice in the form and gets its MIG
 * UUID line; the fleet and the wall display show the slices.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const shots = path.join(root, "test-results", "mig-slices");

test.use({ viewport: { width: 1440, height: 900 } });
test.setTimeout(180_000);

test("a member books a 1g.10gb slice of a partitioned H100 in the form; fleet and wall show the slices", async ({ page, baseURL }) => {
  const hostName = uniqueHostName("e2e-h100-mig");
  const hostToken = await addHost(hostName);
  const fixture = ownH100MigFixture();
  const agent = startAgent(["--server", baseURL!, "--nvidia-smi", fakeNvidiaSmi, "--host-name", hostName], {
    GPUDESK_AGENT_TOKEN: hostToken,
    FAKE_NVIDIA_SMI_DIR: fixture.dir,
    FAKE_NVIDIA_SMI_VARY: "0",
  });
  try {
    await signIn(page, (await member()));
    await page.goto("/");
    const section = page.getByRole("region", { name: `Host ${hostName}` });
    await expect(section.getByTestId("host-status")).toHaveText("online", { timeout: 30_000 });
    // The split GPU, then one card per slice; the recording's three processes run on the 3g.40gb.
    await expect(section.getByRole("article", { name: `GPU 0 on ${hostName}` })).toContainText("split into MIG slices");
    const big = section.getByRole("article", { name: `GPU 0:0 (3g.40gb) on ${hostName}` });
    await expect(big).toContainText("gpu_burn", { timeout: 20_000 });
    await expect(section.getByRole("article", { name: `GPU 0:2 (1g.10gb) on ${hostName}` })).toBeVisible();
    await expect(section.getByTestId("host-availability")).toContainText("3 of 4 free");
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots, "fleet-card.png") });

    await page.goto("/reserve");
    await page.getByLabel("Host").selectOption(hostName);
    await expect(page.getByText("GPU 0 (H100 80GB HBM3) is split into MIG slices: book a slice")).toBeVisible();
    await page.getByRole("button", { name: /^MIG slice 0:2 1g\.10gb, free/ }).click();
    await page.getByText("1 hour", { exact: true }).click();
    await page.getByRole("textbox", { name: "Purpose" }).fill("e2e slice");
    await page.screenshot({ path: path.join(shots, "form.png") });
    await page.getByRole("button", { name: "Book", exact: true }).click();
    await expect(page.getByRole("heading", { name: `Booked: GPU 0:2 (1g.10gb) on ${hostName}` })).toBeVisible();
    const settings = page.getByTestId("launch-settings");
    await expect(settings).toContainText(`export CUDA_VISIBLE_DEVICES=${fixture.slices[2]}`);
    await expect(settings).toContainText(`docker run --gpus '"device=0:2"'`);
    await page.screenshot({ path: path.join(shots, "booked.png"), fullPage: true });

    await page.goto(`/display?hosts=${hostName}`);
    const tiles = page.getByTestId("display-tile");
    await expect(tiles).toHaveCount(4, { timeout: 20_000 });
    await expect(page.getByRole("listitem", { name: `MIG slice 0:2 1g.10gb on ${hostName}: Booked` })).toBeVisible({ timeout: 20_000 });
    await expect(page.getByRole("listitem", { name: new RegExp(`^MIG slice 0:0 3g\\.40gb on ${hostName}`) })).toBeVisible();
    // The host's label counts the slices per profile (it said "4 × H100 3g.40gb, H100 2g.20gb, …").
    await expect(page.getByTestId("display-host-label")).toContainText("1 × H100 in 4 MIG slices");
    await page.screenshot({ path: path.join(shots, "display.png") });
  } finally {
    agent.kill("SIGKILL");
  }
});

test("a partitioned H100's slices on the schedule and the GPU pages; a slice the layout drops flags its booker's booking for tomorrow", async ({ page, baseURL }) => {
  test.setTimeout(240_000);
  const hostName = uniqueHostName("e2e-h100-gone");
  const hostToken = await addHost(hostName);
  const fixture = ownH100MigFixture();
  const agent = startAgent(["--server", baseURL!, "--nvidia-smi", fakeNvidiaSmi, "--host-name", hostName], {
    GPUDESK_AGENT_TOKEN: hostToken,
    FAKE_NVIDIA_SMI_DIR: fixture.dir,
    FAKE_NVIDIA_SMI_VARY: "0",
  });
  const listFile = path.join(fixture.dir, "list-L.txt");
  const layout = readFileSync(listFile, "utf8");
  try {
    const bookedBy = await createUser("slicegone");
    await signIn(page, bookedBy);
    // Tomorrow, a whole hour: a booking still to come when the slice goes.
    const startsAt = new Date(Math.ceil((Date.now() + 20 * 3600_000) / 3600_000) * 3600_000).toISOString();
    let bookingId = "";
    await expect
      .poll(
        async () => {
          const response = await page.request.post("/api/v1/reservations", { data: { host: hostName, slices: ["0:2"], startsAt, durationMinutes: 60, purpose: "e2e slice tomorrow" }, headers: { origin: E2E_ORIGIN } });
          if (response.status() === 201) bookingId = ((await response.json()) as { id: string }).id;
          return response.status();
        },
        { timeout: 60_000 },
      )
      .toBe(201);

    // The schedule: the GPU is a label row, each slice a row of its own with its bookings.
    await page.goto("/schedule?days=3");
    const schedule = page.getByRole("region", { name: `Schedule of ${hostName}` });
    await expect(schedule.getByTestId(`schedule-split-${hostName}-0`)).toContainText("split into MIG slices");
    await expect(schedule.getByTestId(`schedule-gpu-${hostName}-0:1`)).toHaveText("GPU 0:1 (2g.20gb)");
    await expect(schedule.getByTestId(`schedule-gpu-${hostName}-0:2`)).toHaveText("GPU 0:2 (1g.10gb)");
    await expect(schedule.getByTestId(`schedule-row-${hostName}-0:2`).getByRole("button", { name: /e2e slice tomorrow/ })).toBeVisible();
    await expect(schedule.getByRole("link", { name: `Book GPU 0:3 (1g.10gb) on ${hostName}` })).toHaveAttribute("href", /slices=0%3A3/);
    await schedule.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots, "schedule.png"), fullPage: true });

    // The slice's page: a slice, its GPU one link away, its booking, no utilization of its own.
    await page.goto(`/gpus/${fixture.slices[2]}`);
    await expect(page.getByRole("heading", { name: `GPU 0:2 (1g.10gb) on ${hostName}` })).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId("mig-utilization-note")).toContainText("does not report utilization per MIG slice");
    await expect(page.getByTestId("gpu-page-booking")).toContainText("e2e slice tomorrow");
    await page.screenshot({ path: path.join(shots, "gpu-slice.png"), fullPage: true });

    // The GPU's page lists its slices, with states and links.
    await page.getByRole("link", { name: `GPU 0 on ${hostName}` }).click();
    await expect(page.getByRole("heading", { name: `GPU 0 on ${hostName}` })).toBeVisible({ timeout: 20_000 });
    const slices = page.getByRole("table", { name: "MIG slices" });
    await expect(slices.getByRole("row")).toHaveCount(5, { timeout: 20_000 });
    await expect(slices.getByRole("row", { name: `GPU 0:0 (3g.40gb) on ${hostName}` })).toContainText("In use");
    await expect(slices.getByRole("link", { name: "GPU 0:2 (1g.10gb)", exact: true })).toHaveAttribute("href", `/gpus/${fixture.slices[2]}`);
    await page.screenshot({ path: path.join(shots, "gpu-parent.png"), fullPage: true });

    // The layout changes: nvidia-smi lists no MIG device 2 any more.
    writeFileSync(listFile, layout.split("\n").filter((line) => !line.includes("Device  2:")).join("\n"));
    await expect
      .poll(
        async () => {
          const response = await page.request.get("/api/v1/reservations?state=current");
          const views = ((await response.json()) as { reservations?: { id: string; sliceGone?: boolean }[] }).reservations ?? [];
          return views.find((view) => view.id === bookingId)?.sliceGone ?? false;
        },
        // Seconds: the agent reads the layout every 5 s and the changed inventory is stored at once.
        { timeout: 60_000, intervals: [1_000] },
      )
      .toBe(true);
    await page.goto("/reservations");
    await expect(page.getByTestId("slice-gone")).toContainText("GPU 0:2 (1g.10gb) is no longer a unit of");
    await page.screenshot({ path: path.join(shots, "slice-gone.png"), fullPage: true });

    // The slice is back under its MIG UUID: no flag.
    writeFileSync(listFile, layout);
    await expect
      .poll(
        async () => {
          const response = await page.request.get("/api/v1/reservations?state=current");
          const views = ((await response.json()) as { reservations?: { id: string; sliceGone?: boolean }[] }).reservations ?? [];
          return views.find((view) => view.id === bookingId)?.sliceGone ?? false;
        },
        { timeout: 60_000 },
      )
      .toBe(false);
  } finally {
    agent.kill("SIGKILL");
  }
});
