import { readFile } from "node:fs/promises";
import { expect, test, type Page } from "@playwright/test";
import { admin, gpudesk, member, signIn } from "./helpers";

/** Splits simple CSV (quoted fields allowed, no newlines inside them) into rows of fields. */
function parseCsv(text: string): string[][] {
  return text
    .trim()
    .split(/\r?\n/)
    .map((line) => [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map((m) => m[1]!.replace(/^"|"$/g, "").replace(/""/g, '"')).slice(0, -1));
}

async function expectChartDrawn(page: Page, name: string, selector: string) {
  const figure = page.getByRole("figure", { name });
  await expect(figure).toBeVisible();
  await expect(figure.locator(selector).first()).toBeVisible();
  return figure;
}

// Each test walks several pages of a server that also builds history; give it room on a small machine.
test.describe.configure({ timeout: 120_000 });

test.beforeAll(() => {
  test.setTimeout(300_000);
  // Three days of synthetic history before the server's first real minute, as `--demo-history` would make
  // (16 GPUs × 72 h: over a minute on a busy 2-core machine).
  const result = gpudesk(["demo-history", "3d"], 240_000);
  expect(result.status, result.stderr).toBe(0);
  expect(result.stderr).toMatch(/GPU-minutes written|nothing to fill/);
});

test("an admin reads fleet usage over several ranges and downloads the tables as CSV", async ({ page }) => {
  await signIn(page, (await admin()));
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto("/admin/usage?range=7d");
  await expect(page.getByRole("heading", { name: "Usage", level: 1 })).toBeVisible();
  await expect(page.getByText("Includes simulated history")).toBeVisible();
  await expect(page.getByRole("button", { name: "7 d" })).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByText(/points of 1 h from hourly rollups/)).toBeVisible();

  // A simulated host's series: other specs' hosts (idle, a flat area of no height) may come first.
  const simulatedArea = 'path.recharts-area-area[name^="sim-"]';
  const utilization = await expectChartDrawn(page, "Fleet utilization chart", simulatedArea);
  await expect(utilization.locator(simulatedArea).first()).toHaveAttribute("d", /M.+L/);
  const heatmap = await expectChartDrawn(page, "Utilization heatmap", "rect[class]");
  expect(await heatmap.locator("svg rect[class]").count()).toBeGreaterThan(14 * 24);
  const bars = await expectChartDrawn(page, "Booked versus used chart", ".recharts-bar-rectangle");
  // Keep the pointer off the charts so that no tooltip or cursor line is in the screenshots.
  await page.mouse.move(0, 0);
  await utilization.screenshot({ path: "test-results/screens/usage-utilization-7d.png" });
  await heatmap.screenshot({ path: "test-results/screens/usage-heatmap-7d.png" });
  await bars.screenshot({ path: "test-results/screens/usage-booked-used-7d.png" });
  await page.screenshot({ path: "test-results/screens/usage-admin-7d.png", fullPage: true });

  // Per model instead of per host.
  await page.getByRole("button", { name: "By model" }).click();
  await expect(page).toHaveURL(/by=model/);
  await expect(utilization.locator(".recharts-legend-item-text").filter({ hasText: "H100" })).toBeVisible();
  await utilization.screenshot({ path: "test-results/screens/usage-utilization-by-model.png" });

  // 24 h: minute rollups in 5-minute points.
  await page.getByRole("button", { name: "24 h" }).click();
  await expect(page).toHaveURL(/range=24h/);
  await expect(page.getByText(/points of 5 min from minute rollups/)).toBeVisible();
  await expect(page.getByRole("button", { name: "24 h" })).toHaveAttribute("aria-pressed", "true");
  await expect(heatmap.locator("svg rect[class]").first()).toBeVisible();
  await heatmap.screenshot({ path: "test-results/screens/usage-heatmap-24h.png" });

  // 30 d: hourly rollups; the three days of history are there, the rest is a gap.
  await page.getByRole("button", { name: "30 d" }).click();
  await expect(page).toHaveURL(/range=30d/);
  await expect(page.getByText(/points of 2 h from hourly rollups/)).toBeVisible();
  await utilization.screenshot({ path: "test-results/screens/usage-utilization-30d.png" });

  // 1 h.
  await page.getByRole("button", { name: "1 h" }).click();
  await expect(page.getByText(/points of 1 min from minute rollups/)).toBeVisible();

  // Custom: the day before yesterday.
  await page.getByRole("button", { name: "Custom" }).click();
  const day = 24 * 60 * 60_000;
  const local = (ms: number) => new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  await page.getByLabel("From", { exact: true }).fill(local(Date.now() - 2 * day));
  await page.getByLabel("To", { exact: true }).fill(local(Date.now() - day));
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/range=custom&from=.+&to=/);
  await expect(page.getByRole("button", { name: "Custom" })).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByText(/points of 5 min from minute rollups/)).toBeVisible();

  // Back to 7 d; sort people by use, then download both tables.
  await page.getByRole("button", { name: "7 d" }).click();
  await expect(page).toHaveURL(/range=7d/);
  const people = page.getByRole("table", { name: "GPU time per person" });
  const usedHeader = people.getByRole("columnheader", { name: /Used GPU-h/ });
  await usedHeader.getByRole("button").click();
  await expect(usedHeader).toHaveAttribute("aria-sort", "descending");
  const firstPerson = (await people.locator("tbody tr").first().locator("th").innerText()).split("@")[0]!.trim();

  const peopleCard = page.getByRole("region", { name: "People" });
  const [peopleDownload] = await Promise.all([page.waitForEvent("download"), peopleCard.getByRole("link", { name: "Download CSV" }).click()]);
  expect(peopleDownload.suggestedFilename()).toMatch(/^gpudesk-usage-people-\d{8}T\d{4}Z-\d{8}T\d{4}Z\.csv$/);
  const peopleCsv = parseCsv(await readFile((await peopleDownload.path())!, "utf8"));
  expect(peopleCsv[0]).toEqual(["person", "username", "booked_gpu_hours", "used_gpu_hours", "efficiency_pct", "idle_booked_gpu_hours", "gpus", "simulated", "used_without_booking_gpu_hours", "unknown_booked_gpu_hours", "handed_back_gpu_hours"]);
  const tableRows = await people.locator("tbody tr").count();
  expect(peopleCsv.length - 1).toBe(tableRows);
  expect(peopleCsv.map((row) => row[0])).toContain(firstPerson);
  for (const row of peopleCsv.slice(1)) {
    expect(Number(row[2])).toBeGreaterThanOrEqual(0);
    expect(Number(row[3])).toBeGreaterThanOrEqual(0);
  }
  // The simulated team: held GPU time, some of it used, marked simulated.
  const simulatedRows = peopleCsv.slice(1).filter((row) => row[7] === "yes");
  expect(simulatedRows.length).toBeGreaterThan(0);
  expect(simulatedRows.some((row) => Number(row[2]) > 1 && Number(row[3]) > 0)).toBe(true);

  const hostsCard = page.getByRole("region", { name: "Hosts" });
  const [hostsDownload] = await Promise.all([page.waitForEvent("download"), hostsCard.getByRole("link", { name: "Download CSV" }).click()]);
  const hostsCsv = parseCsv(await readFile((await hostsDownload.path())!, "utf8"));
  expect(hostsCsv[0]![0]).toBe("host");
  // Other specs add hosts of their own to the shared server; the three demo hosts must all be there.
  expect(hostsCsv.slice(1).map((row) => row[0])).toEqual(expect.arrayContaining(["sim-4090-a", "sim-a100-a", "sim-h100-a"]));
  const h100 = hostsCsv.find((row) => row[0] === "sim-h100-a")!;
  expect(Number(h100[1])).toBe(8);
  // Three days of eight GPUs, plus the live minutes: about 576 GPU-hours reported.
  expect(Number(h100[2])).toBeGreaterThan(8 * 72 * 0.95);
  expect(Number(h100[2])).toBeLessThan(8 * 24 * 7);
  await page.getByRole("table", { name: "GPU time per host" }).screenshot({ path: "test-results/screens/usage-hosts-table.png" });
});

test("Prometheus scrapes /metrics as an admin; others are refused", async ({ page, request }) => {
  await signIn(page, (await admin()));
  const response = await page.request.get("/metrics");
  expect(response.status()).toBe(200);
  const text = await response.text();
  expect(text).toMatch(/^DCGM_FI_DEV_GPU_UTIL\{gpu="0",UUID="GPU-[^"]+",pci_bus_id="[^"]*",device="nvidia0",modelName="[^"]+",Hostname="sim-h100-a"/m);
  expect(text).toMatch(/^gpudesk_host_online\{Hostname="sim-4090-a"\} 1$/m);
  const anonymous = await request.get("/metrics");
  expect(anonymous.status()).toBe(401);
});

test("a member sees their own usage, not the fleet's, and the GPU page shows history", async ({ page }) => {
  await signIn(page, (await member()));
  await page.goto("/admin/usage");
  // Sent to the fleet with a notice; the notice takes ?forbidden=1 out of the address once shown, so check the notice.
  await expect(page.getByRole("status").filter({ hasText: "That page is for admins" })).toBeVisible();
  await page.goto("/usage?range=24h");
  await expect(page.getByRole("heading", { name: "My usage", level: 1 })).toBeVisible();
  await expect(page.getByText("Used without a booking")).toHaveCount(0);
  await expect(page.getByRole("figure", { name: "Fleet utilization chart" })).toBeVisible();

  await page.goto("/");
  await page.getByRole("article", { name: "GPU 0 on sim-h100-a" }).getByRole("link").first().click();
  const history = page.getByRole("region", { name: "History" });
  await expect(history.getByText(/Points of 5 min from minute rollups/)).toBeVisible();
  const utilization = history.getByRole("figure", { name: "Utilization history" });
  await expect(utilization.locator("path.recharts-area-area").first()).toHaveAttribute("d", /M.+L/);
  const week = history.getByRole("button", { name: "7 d" });
  await week.click();
  await expect(week).toHaveAttribute("aria-pressed", "true");
  await expect(history.getByText(/Points of 1 h from hourly rollups/)).toBeVisible();
  await page.mouse.move(0, 0);
  // The live values above re-render every second; a full-page shot does not wait for the section to hold still.
  await page.screenshot({ path: "test-results/screens/gpu-history-7d.png", fullPage: true });
});
