import { expect, test, type Page } from "@playwright/test";
import { E2E_ORIGIN, admin, fakeNvidiaSmi, ownH200Fixture, signIn, startAgent, uniqueHostName } from "./helpers";

/**
 * The wall display's host labels on the two screens it is made for: every
 * host name and its status whole on one line (they used to wrap letter by
 * letter, "online" cut to "onlin"), a long name included.
 */

const SCREENS = [
  { width: 1920, height: 1080 },
  { width: 3840, height: 2160 },
];

interface LineReport {
  text: string;
  title: string | null;
  scrollWidth: number;
  clientWidth: number;
  height: number;
  lineHeight: number;
}

async function readLines(page: Page, testId: string): Promise<LineReport[]> {
  return page.getByTestId(testId).evaluateAll((elements) =>
    elements.map((element) => {
      const style = getComputedStyle(element);
      const lineHeight = style.lineHeight === "normal" ? parseFloat(style.fontSize) * 1.2 : parseFloat(style.lineHeight);
      return {
        text: (element.textContent ?? "").trim(),
        title: element.getAttribute("title"),
        scrollWidth: element.scrollWidth,
        clientWidth: element.clientWidth,
        height: element.getBoundingClientRect().height,
        lineHeight,
      };
    }),
  );
}

function expectOneWholeLine(line: LineReport, where: string) {
  expect(line.scrollWidth, `${where}: "${line.text}" is clipped`).toBeLessThanOrEqual(line.clientWidth);
  // One line: no taller than one line box (a second line would double it).
  expect(line.height, `${where}: "${line.text}" wraps`).toBeLessThan(line.lineHeight * 1.5);
}

test("host names and status stay whole on one line at 1920×1080 and 3840×2160, a long name too", async ({ page, baseURL }) => {
  test.setTimeout(120_000);
  const boss = (await admin());
  await signIn(page, boss);
  // A name as long as real ones get ("gpu-lab-b-rack-07-node-…"), on a host of its own that this test removes.
  const longName = uniqueHostName("gpu-lab-b-rack-07-node");
  const created = await page.request.post("/api/v1/hosts", { data: { name: longName }, headers: { origin: E2E_ORIGIN } });
  expect(created.status(), await created.text()).toBe(201);
  const { host, token } = (await created.json()) as { host: { id: string }; token: string };
  const agent = startAgent(["--server", baseURL!, "--nvidia-smi", fakeNvidiaSmi, "--host-name", longName], { GPUDESK_AGENT_TOKEN: token, FAKE_NVIDIA_SMI_DIR: ownH200Fixture() });
  try {
    const names = ["sim-h100-a", "sim-a100-a", "sim-4090-a", longName];
    for (const screen of SCREENS) {
      const where = `${screen.width}×${screen.height}`;
      await page.setViewportSize(screen);
      await page.goto(`/display?hosts=${names.join(",")}`);
      await expect(page.getByRole("region", { name: `Host ${longName}` })).toBeVisible({ timeout: 20_000 });
      await expect(page.getByTestId("display-host-status").last()).toHaveText("online");

      const shown = await readLines(page, "display-host-name");
      expect(shown.map((line) => line.text).sort(), where).toEqual([...names].sort());
      for (const line of shown) expectOneWholeLine(line, where);
      const statuses = await readLines(page, "display-host-status");
      expect(statuses.map((line) => line.text), where).toEqual(names.map(() => "online"));
      for (const line of statuses) expectOneWholeLine(line, where);
      await page.screenshot({ path: `test-results/screens/display-names-${screen.width}x${screen.height}.png` });
    }
  } finally {
    agent.kill("SIGKILL");
    await page.request.delete(`/api/v1/hosts/${host.id}`, { headers: { origin: E2E_ORIGIN } });
  }
});
