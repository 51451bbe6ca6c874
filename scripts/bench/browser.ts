/**
 * The browser side of the benchmark: the fleet view (/) and the wall
 * display (/display) in headless Chromium with a fleet whose every GPU
 * updates each second, measured over the DevTools protocol: main-thread
 * task time per second (Performance.getMetrics), long tasks
 * (PerformanceObserver "longtask"), animation frames per second and the JS
 * heap; and each main-thread task's CPU time from a Chromium trace. The
 * server runs its own simulated fleet in-process, so only the page is under
 * test here. With BENCH_TRACE_DIR set, each page's trace (with the
 * devtools.timeline category: what each task did) is written there as
 * fleet.json and display.json, for chrome://tracing or Perfetto.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
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
  /** Long tasks from the navigation to the measuring window: loading, hydration, the first snapshot. */
  loadLongTasks: number;
  loadLongestTaskMs: number;
  heapMiB: number;
  /**
   * The main thread's tasks by their CPU time (thread time from a Chromium
   * trace), which does not grow while other processes hold the cores as the
   * long-task durations above do: the longest, and how many took more than
   * 50 ms and more than 50 / 3 ms of CPU (long tasks on this machine, and on
   * one three times slower), while loading and in the measuring window.
   */
  taskCpu: { load: TaskCpu; steady: TaskCpu } | null;
  /** With --cpu-prof: the page's V8 CPU profiles (loading, then the measuring window). */
  cpuProfiles?: { load: string; steady: string };
}

export interface TaskCpu {
  longestMs: number;
  over50Ms: number;
  over17Ms: number;
}

export interface BrowserResult {
  gpus: number;
  /** Chromium's CPU throttling rate (1: none); times and long tasks are then those of a machine this many times slower. */
  cpuThrottle: number;
  seconds: number;
  chromiumVersion: string;
  viewport: string;
  pages: BrowserPageResult[];
}

const cli = path.join(repoRoot, "bin", "gpudesk.js");
const VIEWPORT = { width: 1920, height: 1080 };

/** Long tasks, recorded by the page itself from its first script on. */
const PAGE_COUNTERS = `
  window.__bench = { longTasks: [] };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__bench.longTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: "longtask", buffered: true });
`;

/**
 * Animation frames the page can draw per second, counted after the CPU
 * window: a requestAnimationFrame loop makes Chromium produce a frame every
 * 16 ms, which cost 36 ms of main-thread CPU per second on a blank page, more
 * than half of the wall display's whole budget.
 */
const FRAME_SECONDS = 3;

/** A string, not a function: tsx would name the inner callback with a helper the page does not have. */
const COUNT_FRAMES = `new Promise((resolve) => {
  let frames = 0;
  let counting = true;
  const frame = () => {
    frames += 1;
    if (counting) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  const start = performance.now();
  setTimeout(() => {
    counting = false;
    resolve((frames * 1000) / (performance.now() - start));
  }, ${FRAME_SECONDS * 1000});
})`;

async function framesPerSecond(page: Page): Promise<number> {
  return page.evaluate<number>(COUNT_FRAMES);
}

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

/** A V8 CPU profile of the page's main thread, started before the page loads (--cpu-prof). */
interface PageProfiler {
  dir: string;
  file: string;
}

async function startProfile(cdp: CDPSession): Promise<void> {
  await cdp.send("Profiler.enable");
  // 100 µs: the default 1 ms sees too little of a page whose every task is short.
  await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
  await cdp.send("Profiler.start");
}

async function saveProfile(cdp: CDPSession, profiler: PageProfiler, part: string): Promise<string> {
  const { profile } = await cdp.send("Profiler.stop");
  mkdirSync(profiler.dir, { recursive: true });
  const file = path.join(profiler.dir, `${profiler.file}-${part}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  return file;
}

interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

/** The name of the user-timing mark that splits the trace into loading and the measuring window. */
const STEADY_MARK = "bench-steady";

function taskCpuOf(tasks: { ts: number; cpuMs: number }[]): TaskCpu {
  return {
    longestMs: tasks.reduce((most, task) => Math.max(most, task.cpuMs), 0),
    over50Ms: tasks.filter((task) => task.cpuMs > 50).length,
    over17Ms: tasks.filter((task) => task.cpuMs > 50 / 3).length,
  };
}

/**
 * The page's main-thread tasks by CPU time, from a trace of the "toplevel"
 * category: the outermost task events of the renderer main thread that
 * carries the steady mark, split at that mark. Null when the trace lacks them.
 */
export function taskCpuFromTrace(json: string): { load: TaskCpu; steady: TaskCpu } | null {
  const events = (JSON.parse(json) as { traceEvents: TraceEvent[] }).traceEvents;
  const mark = events.find((event) => event.name === STEADY_MARK && event.cat.includes("blink.user_timing"));
  if (!mark) return null;
  const mainThread = events.find((event) => event.ph === "M" && event.name === "thread_name" && event.pid === mark.pid && event.args?.name === "CrRendererMain");
  if (!mainThread) return null;
  const top = events
    .filter((event) => event.ph === "X" && event.cat.split(",").includes("toplevel") && event.pid === mark.pid && event.tid === mainThread.tid && event.tdur !== undefined)
    .sort((a, b) => a.ts - b.ts);
  const tasks: { ts: number; cpuMs: number }[] = [];
  let end = Number.NEGATIVE_INFINITY;
  for (const event of top) {
    if (event.ts < end) continue; // nested in the task before
    end = event.ts + (event.dur ?? 0);
    tasks.push({ ts: event.ts, cpuMs: event.tdur! / 1000 });
  }
  return { load: taskCpuOf(tasks.filter((task) => task.ts < mark.ts)), steady: taskCpuOf(tasks.filter((task) => task.ts >= mark.ts)) };
}

async function measurePage(
  page: Page,
  cdp: CDPSession,
  name: string,
  pagePath: string,
  seconds: number,
  profiler: PageProfiler | null,
  stopTrace: () => Promise<string>,
): Promise<BrowserPageResult> {
  await cdp.send("Performance.enable", { timeDomain: "timeTicks" });
  // Let loading, hydration and the first snapshot pass: only the steady updates count.
  await page.waitForTimeout(5_000);
  const startCounters = await page.evaluate((mark) => {
    performance.mark(mark);
    return { now: performance.now() };
  }, STEADY_MARK);
  const load = profiler ? await saveProfile(cdp, profiler, "load") : null;
  if (profiler) await startProfile(cdp);
  const before = await metrics(cdp);
  await page.waitForTimeout(seconds * 1000);
  const after = await metrics(cdp);
  const end = await page.evaluate(() => {
    const bench = (window as unknown as { __bench: { longTasks: { start: number; duration: number }[] } }).__bench;
    return { now: performance.now(), tasks: bench.longTasks };
  });
  const steady = profiler ? await saveProfile(cdp, profiler, "steady") : null;
  const taskCpu = taskCpuFromTrace(await stopTrace());
  const frames = await framesPerSecond(page);
  const tasks = end.tasks.filter((task) => task.start >= startCounters.now);
  const loadTasks = end.tasks.filter((task) => task.start < startCounters.now);
  const elapsed = (end.now - startCounters.now) / 1000;
  const perSecond = (metric: string) => ((after[metric]! - before[metric]!) * 1000) / elapsed;
  const longest = (list: { duration: number }[]) => list.reduce((most, task) => Math.max(most, task.duration), 0);
  return {
    name,
    path: pagePath,
    busyMsPerSecond: perSecond("TaskDuration"),
    cpuMsPerSecond: perSecond("ThreadTime"),
    scriptMsPerSecond: perSecond("ScriptDuration"),
    styleLayoutMsPerSecond: perSecond("RecalcStyleDuration") + perSecond("LayoutDuration"),
    framesPerSecond: frames,
    longTasks: tasks.length,
    longestTaskMs: longest(tasks),
    loadLongTasks: loadTasks.length,
    loadLongestTaskMs: longest(loadTasks),
    heapMiB: after.JSHeapUsedSize! / 2 ** 20,
    taskCpu,
    ...(load && steady ? { cpuProfiles: { load, steady } } : {}),
  };
}

export async function runBrowserBench(options: {
  gpus: number;
  seconds: number;
  port: number;
  /** Where to write each page's CPU profiles; null for none. */
  cpuProfileDir: string | null;
  /** Emulation.setCPUThrottlingRate for each page, set before it loads (1: none). */
  cpuThrottle?: number;
  log: (line: string) => void;
}): Promise<BrowserResult> {
  let server: DisplayServer | null = null;
  let browser: Browser | null = null;
  const throttle = options.cpuThrottle ?? 1;
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
    // The fleet view as cards, filtered (a link to the free GPUs, kept in the URL) and as the dense list (one row per GPU).
    const targets = [
      { name: "fleet view (/)", file: "fleet", path: "/", ready: "host-status", signIn: true, dense: false },
      { name: "fleet view, filtered (/?state=free)", file: "fleet-filtered", path: "/?state=free", ready: "filter-shown", signIn: true, dense: false },
      { name: "fleet view, dense", file: "fleet-dense", path: "/", ready: "fleet-row", signIn: true, dense: true },
      { name: "wall display (/display)", file: "display", path: `/display?token=${encodeURIComponent(displayToken)}`, ready: "display-tile", signIn: false, dense: false },
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
      if (target.dense) {
        // The person's remembered layout (components/fleet/fleet-layout-choice.ts), as after choosing "Dense" once.
        const me = (await (await page.request.get("/api/v1/me")).json()) as { user: { id: string } };
        await context.addInitScript((key) => window.localStorage.setItem(key, "dense"), `gpudesk.fleet.layout.${me.user.id}`);
      }
      const cdp = await context.newCDPSession(page);
      const profiler = options.cpuProfileDir ? { dir: options.cpuProfileDir, file: `${target.file}-${options.gpus}` } : null;
      if (throttle > 1) await cdp.send("Emulation.setCPUThrottlingRate", { rate: throttle });
      if (profiler) await startProfile(cdp);
      await browser.startTracing(page, { categories: ["toplevel", "blink.user_timing", "__metadata", ...(process.env.BENCH_TRACE_DIR ? ["devtools.timeline", "v8.execute"] : [])] });
      const tracer = browser;
      const stopTrace = async () => {
        const json = (await tracer.stopTracing()).toString("utf8");
        if (process.env.BENCH_TRACE_DIR) writeFileSync(path.join(process.env.BENCH_TRACE_DIR, `${target.file}.json`), json);
        return json;
      };
      await page.goto(target.path);
      await page.getByTestId(target.ready).first().waitFor({ timeout: 60_000 });
      const result = await measurePage(page, cdp, target.name, target.path.replace(/token=[^&]+/, "token=…"), options.seconds, profiler, stopTrace);
      options.log(
        `  ${target.name}: ${result.busyMsPerSecond.toFixed(0)} ms/s busy (${result.cpuMsPerSecond.toFixed(0)} of CPU), ${result.longTasks} long tasks (longest ${result.longestTaskMs.toFixed(0)} ms), ${result.framesPerSecond.toFixed(1)} frames/s; while loading ${result.loadLongTasks} long tasks (longest ${result.loadLongestTaskMs.toFixed(0)} ms)`,
      );
      const cpu = result.taskCpu;
      // Throttled, the thread time counts the throttle's own wait.
      if (cpu && throttle === 1) {
        const phase = (label: string, tasks: TaskCpu) => `${label}: longest task ${tasks.longestMs.toFixed(1)} ms of CPU, ${tasks.over50Ms} over 50 ms, ${tasks.over17Ms} over 17 ms`;
        options.log(`    by CPU time: ${phase("steady", cpu.steady)}; ${phase("loading", cpu.load)}`);
      }
      pages.push(result);
      await context.close();
    }
    return {
      gpus: options.gpus,
      cpuThrottle: throttle,
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
