import { mkdirSync } from "node:fs";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { addHost, admin, createUser, fakeNvidiaSmi, ownH100MigFixture, signIn, startAgent, tokenFor, uniqueHostName } from "./helpers";

/**
 * Issue 37's screens with MIG slices, for a person to look at
 * (test-results/screens/slices-*.png, at 1920×1080 and 390×844): the usage
 * heatmap, /alerts and the audit log name each slice as every surface does
 * ("GPU 0:0 (3g.40gb)"), never "GPU 0" alone. A held-out agent replays the
 * real H100 MIG recording; a member books the busy 3g.40gb slice over the
 * recording's processes (a conflict opens) and a 1g.10gb slice an admin
 * releases.
 */

const SHOTS = "test-results/screens";
const VIEWPORTS = [
  { name: "desktop", width: 1920, height: 1080 },
  { name: "phone", width: 390, height: 844 },
] as const;

test.setTimeout(180_000);

async function shoot(browser: Browser, who: { username: string; password: string }, path: string, name: string, ready: (page: Page, size: string) => Promise<void>) {
  for (const viewport of VIEWPORTS) {
    const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height }, ...(viewport.name === "phone" ? { isMobile: true, hasTouch: true } : {}) });
    const page = await context.newPage();
    await signIn(page, who);
    await page.goto(path);
    await ready(page, viewport.name);
    await page.screenshot({ path: `${SHOTS}/slices-${name}-${viewport.name}.png`, fullPage: true });
    await context.close();
  }
}

test("issue 37 screens: the usage heatmap, /alerts and the audit log name slices", async ({ browser, request, baseURL }) => {
  mkdirSync(SHOTS, { recursive: true });
  const hostName = uniqueHostName("e2e-slices");
  const agent = startAgent(["--server", baseURL!, "--nvidia-smi", fakeNvidiaSmi, "--host-name", hostName], {
    GPUDESK_AGENT_TOKEN: await addHost(hostName),
    FAKE_NVIDIA_SMI_DIR: ownH100MigFixture().dir,
    FAKE_NVIDIA_SMI_VARY: "0",
  });
  const person = await createUser("slicer", { name: "Sam Slicer" });
  const auth = { authorization: `Bearer ${await tokenFor(person)}` };
  const boss = await admin();
  const bossAuth = { authorization: `Bearer ${await tokenFor(boss)}` };
  try {
    // The busy 3g.40gb, over the recording's processes (someone else's): a conflict on that slice.
    let busy = { id: "" };
    await expect
      .poll(
        async () => {
          const answer = await request.post("/api/v1/reservations", { headers: auth, data: { host: hostName, slices: ["0:0"], allowBusy: true, durationMinutes: 60, purpose: "slice screens" } });
          if (answer.status() === 201) busy = (await answer.json()) as typeof busy;
          return answer.status();
        },
        { timeout: 60_000, intervals: [1000] },
      )
      .toBe(201);
    const small = await request.post("/api/v1/reservations", { headers: auth, data: { host: hostName, slices: ["0:2"], durationMinutes: 60, purpose: "released by the admin" } });
    expect(small.status(), await small.text()).toBe(201);
    const released = await request.post(`/api/v1/reservations/${((await small.json()) as { id: string }).id}/release`, { headers: bossAuth });
    expect(released.ok(), await released.text()).toBe(true);

    await expect
      .poll(
        async () => {
          const alerts = (await (await request.get("/api/v1/alerts", { headers: bossAuth })).json()) as { alerts: { kind: string; host: { name: string } | null; gpu: { unit?: string | null } | null }[] };
          return alerts.alerts.find((alert) => alert.kind === "conflict" && alert.host?.name === hostName)?.gpu?.unit ?? null;
        },
        { timeout: 60_000, intervals: [1000] },
      )
      .toBe("GPU 0:0 (3g.40gb)");

    await shoot(browser, boss, "/alerts", "alerts", async (page) => {
      await expect(page.getByText(`${hostName} · GPU 0:0 (3g.40gb)`)).toBeVisible();
      // Who runs there is whatever this machine's /proc says of the recording's pids: often nobody ("An unknown owner").
      await expect(page.getByText(new RegExp(`runs? on GPU 0:0 \\(3g\\.40gb\\) of ${hostName}, booked by Sam Slicer$`))).toBeVisible();
      await expect(page.getByText(/unknown \(owner unknown\)/)).toHaveCount(0);
    });
    await shoot(browser, boss, "/admin/audit", "audit", async (page) => {
      // Each entry names the slice as every surface does; a release says which booking it ended.
      const table = page.getByRole("table");
      await expect(table).toContainText(`Released: ${hostName} GPU 0:2 (1g.10gb); ends at`);
      await expect(table).toContainText(`Booked: ${hostName} GPU 0:0 (3g.40gb) from`);
      await expect(table).toContainText("booked over running work on GPU 0:0 (3g.40gb)");
    });
    // The demo's split H100 and this host: a row per slice under its GPU.
    await shoot(browser, boss, "/admin/usage?range=24h", "usage", async (page, size) => {
      const heatmap = page.getByRole("figure", { name: "Utilization heatmap" });
      await expect(heatmap).toContainText("GPU 0:2 (1g.10gb)");
      await heatmap.scrollIntoViewIfNeeded();
      await heatmap.screenshot({ path: `${SHOTS}/slices-heatmap-${size}.png` });
    });
    await request.post(`/api/v1/reservations/${busy.id}/release`, { headers: auth });
  } finally {
    agent.kill();
  }
});
