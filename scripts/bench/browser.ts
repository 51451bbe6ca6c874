/**
 * The browser side of the benchmark: the fleet view (/) and the wall
 * display (/display) in headless Chromium with a fleet whose every GPU
 * updates each second, measured over the DevTools protocol: main-thread
 * task time per second (Performance.getMetrics), long tasks
 * (PerformanceObserver "longtask"), animation frames per second and the JS
 * heap. The server runs its own simulated fleet in-process, so only the
 * page is under test here.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { chromium, type Browser, type CDPSession, type Page } from "@playwright/test";
import { createDisplayToken, startDisplayServer, type DisplayServer } from "../../e2e/display-server";
import { repoRoot } from "./scenario";

export interface BrowserPageResult {
  name: string;
  path: string;
  busyMsPerSecond: number;
  /** CPU time of the main thread: unlike the task durations, it does not grow while other processes hold the cores. */
  cpuMsPerSecond: number;
  scriptMsPerSecond: number;
  styleLayoutMsPerSecond: number;
  framesPerSecond: number;
  longTasks: number;
  longestTaskMs: number;
  heapMiB: number;
}

export interface BrowserResult {
  gpus: number;
  seconds: number;
  chromiumVersion: string;
  viewport: string;
  pages: BrowserPageResult[];
}

const cli = path.join(repoRoot, "bin", "gpudesk.js");
const VIEWPORT = { width: 1920, height: 1080 };

/** Long tasks and animation frames, counted by the page itself from its first script on. */
const PAGE_COUNTERS = `
  window.__bench = { longTasks: [], frames: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__bench.longTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: "longtask", buffered: true });
  const frame = () => { window.__bench.frames += 1; requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
`;

/** A member account in that server's database, made with the CLI as an admin would. */
function addUser(dataDir: string, username: string, password: string): void {
  const env: NodeJS.ProcessEnv = { ...process.env, GPUDESK_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  const result = spawnSync(process.execPath, [cli, "user", "add", username, "--password-stdin"], {
    cwd: repoRoot,
    env,
    input: password,
    encoding: "utf8",
    timeout: 120_000,
  });
  if (result.status !== 0) throw new Error(`gpudesk user add failed: ${result.stderr}`);
}

async function metrics(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics: list } = await cdp.send("Performance.getMetrics");
  return Object.fromEntries(list.map((metric) => [metric.name, metric.value]));
}

async function measurePage(page: Page, cdp: CDPSession, name: string, pagePath: string, seconds: number): Promise<BrowserPageResult> {
  await cdp.send("Performance.enable", { timeDomain: "timeTicks" });
  // Let loading, hydration and the first snapshot pass: only the steady updates count.
  await page.waitForTimeout(5_000);
  const startCounters = await page.evaluate(() => {
    const bench = (window as unknown as { __bench: { longTasks: { start: number }[]; frames: number } }).__bench;
    return { now: performance.now(), frames: bench.frames };
  });
  const before = await metrics(cdp);
  await page.waitForTimeout(seconds * 1000);
  const after = await metrics(cdp);
  const end = await page.evaluate((since) => {
    const bench = (window as unknown as { __bench: { longTasks: { start: number; duration: number }[]; frames: number } }).__bench;
    const tasks = bench.longTasks.filter((task) => task.start >= since);
    return { now: performance.now(), frames: bench.frames, tasks };
  }, startCounters.now);
  const elapsed = (end.now - startCounters.now) / 1000;
  const perSecond = (metric: string) => ((after[metric]! - before[metric]!) * 1000) / elapsed;
  return {
    name,
    path: pagePath,
    busyMsPerSecond: perSecond("TaskDuration"),
    cpuMsPerSecond: perSecond("ThreadTime"),
    scriptMsPerSecond: perSecond("ScriptDuration"),
    styleLayoutMsPerSecond: perSecond("RecalcStyleDuration") + perSecond("LayoutDuration"),
    framesPerSecond: (end.frames - startCounters.frames) / elapsed,
    longTasks: end.tasks.length,
    longestTaskMs: end.tasks.reduce((longest, task) => Math.max(longest, task.duration), 0),
    heapMiB: after.JSHeapUsedSize! / 2 ** 20,
  };
}

export async function runBrowserBench(options: { gpus: number; seconds: number; port: number; log: (line: string) => void }): Promise<BrowserResult> {
  let server: DisplayServer | null = null;
  let browser: Browser | null = null;
  try {
    // The wall display's own test server: the simulated fleet in-process, every GPU sampled each second.
    server = await startDisplayServer({ gpus: options.gpus, port: options.port });
    const password = "bench-viewer-password";
    addUser(server.dataDir, "benchviewer", password);
    const displayToken = createDisplayToken(server.dataDir, "bench-wall");
    const origin = server.url;
    options.log(`  server with ${options.gpus} simulated GPUs on ${origin}`);
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
    const pages: BrowserPageResult[] = [];
    const targets = [
      { name: "fleet view (/)", path: "/", ready: "host-status", signIn: true },
      { name: "wall display (/display)", path: `/display?token=${encodeURIComponent(displayToken)}`, ready: "display-tile", signIn: false },
    ];
    for (const target of targets) {
      const context = await browser.newContext({ viewport: VIEWPORT, baseURL: origin });
      await context.addInitScript(PAGE_COUNTERS);
      const page = await context.newPage();
      if (target.signIn) {
        const response = await page.request.post("/api/auth/sign-in/username", {
          data: { username: "benchviewer", password },
          headers: { origin },
        });
        if (!response.ok()) throw new Error(`sign-in failed: ${response.status()} ${await response.text()}`);
      }
      const cdp = await context.newCDPSession(page);
      await page.goto(target.path);
      await page.getByTestId(target.ready).first().waitFor({ timeout: 60_000 });
      const result = await measurePage(page, cdp, target.name, target.path.replace(/token=[^&]+/, "token=…"), options.seconds);
      options.log(`  ${target.name}: ${result.busyMsPerSecond.toFixed(0)} ms/s busy (${result.cpuMsPerSecond.toFixed(0)} of CPU), ${result.longTasks} long tasks, ${result.framesPerSecond.toFixed(1)} frames/s`);
      pages.push(result);
      await context.close();
    }
    return {
      gpus: options.gpus,
      seconds: options.seconds,
      chromiumVersion: browser.version(),
      viewport: `${VIEWPORT.width}×${VIEWPORT.height}`,
      pages,
    };
  } finally {
    await browser?.close();
    await server?.dispose();
  }
}
