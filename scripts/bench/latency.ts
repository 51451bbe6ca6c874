/**
 * `npm run bench -- --latency`: change → viewer (issue 42). A value changes
 * in the GPU source at a random moment; the bench times its way to a
 * member's `/live` viewer and to the fleet view's painted card, stage by
 * stage. The GPUs measured are read by the real host agent
 * (scripts/bench/latency-agent.ts: nvidia-smi source, collector, agent
 * loop, socket transport) from scripts/fake-nvidia-smi.mjs replaying a
 * recording, its GPU row repeated to 8 GPUs; simulated agents carry the
 * rest of a larger fleet. Every stamp is taken on this machine's clock:
 * the fake logs each tick, the agent stamps read, send and acknowledgement,
 * the server stamps the delta (`t`), the viewer its arrival and decoding,
 * the page its socket frame and the animation frame after the card changed.
 */
import type { ChildProcess } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "@playwright/test";
import { io, type Socket } from "socket.io-client";
import { LIVE_NAMESPACE, type LiveGpu } from "@/lib/live/live";
import type { LiveClientToServer, LiveServerToClient } from "@/lib/live/live-events";
import { LIVE_FORMAT_VERSION, expandFleetDelta, type FleetDeltaWire, type FleetSnapshotWire, type SlotTable } from "@/lib/live/live-wire";
import type { AgentWorkerConfig } from "./agent-worker";
import type { AgentReadingTimes, LatencyAgentConfig } from "./latency-agent";
import { firstTickCarrying, summarizeStages, type ChangeTrace, type StageSummary } from "./latency-stages";
import { prepareDatabase, repoRoot, sleep, startServer, startWorker, stopProcess, type RunningServer } from "./scenario";

export interface LatencyOptions {
  /** Fleet sizes; the real agent carries 8 GPUs of each, simulated agents the rest. */
  gpus: number[];
  intervalMs: number;
  changes: number;
  browser: boolean;
  port: number;
  log: (line: string) => void;
}

export interface LatencySettingResult {
  gpus: number;
  intervalMs: number;
  changes: number;
  /** Changes the viewer saw (and the page painted) within the wait. */
  seenOnWire: number;
  painted: number | null;
  stages: StageSummary[];
  /** Each change's stamps, relative to its change (ms): where one stage's tail comes from. */
  traces: Record<string, number | null>[];
  loadAverage: { before: number[]; after: number[] };
}

const REAL_HOST = "latency-node";
const REAL_GPUS = 8;
const FIELD = "utilization.gpu";
const RECORDING = path.join(repoRoot, "host", "collector", "fixtures", "h200-driver-580");
const MEMBER = { username: "bench.viewer", password: "bench-viewer-password" };
/** How long a change may take to show before it counts as not seen. */
const SEEN_WITHIN_MS = 6_000;

/**
 * The recording with its one GPU row repeated as GPUs 0 to `count` - 1 (own
 * index, UUID and bus id), in a folder of its own: the fake reads it on
 * every tick. Also the peer comparison's fleet (scripts/bench/peer-gpu-hot.ts).
 */
export function recordingWithGpus(dir: string, count = REAL_GPUS): void {
  mkdirSync(dir, { recursive: true });
  for (const file of readdirSync(RECORDING)) copyFileSync(path.join(RECORDING, file), path.join(dir, file));
  const lines = readFileSync(path.join(RECORDING, "query-gpu__load.csv"), "utf8").split("\n");
  const rowAt = lines.findIndex((line) => /^0, GPU-/.test(line));
  const row = lines[rowAt]!;
  const hex = (n: number) => n.toString(16).padStart(2, "0");
  const rows = Array.from({ length: count }, (_, i) =>
    row
      .replace(/^0, /, `${i}, `)
      .replace(/GPU-(\w{8})/, (_m, head: string) => `GPU-${head.slice(0, 8 - String(i).length)}${i}`)
      .replace(/00000000:00:06\.0/, `00000000:${hex((6 + i) >> 8)}:${hex((6 + i) & 0xff)}.0`),
  );
  lines.splice(rowAt, 1, ...rows);
  writeFileSync(path.join(dir, "query-gpu__load.csv"), lines.join("\n"));
}

/**
 * Sets the fake's `utilization.gpu` on every GPU row from its next tick on
 * (FAKE_NVIDIA_SMI_SET): written beside and renamed over, so that a tick
 * never reads half a file.
 */
export function utilizationSetter(setFile: string): (value: number) => void {
  return (value) => {
    writeFileSync(`${setFile}.new`, `${FIELD}=${value} %\n`);
    renameSync(`${setFile}.new`, setFile);
  };
}

/** What the socket.io viewer saw of the measured GPU: the first delta showing each value. */
interface ViewerSighting {
  value: number;
  sampledAt: number;
  deltaAt: number;
  viewerAt: number;
  decodedAt: number;
}

/** A member's `/live` viewer expanding every delta as the browser does, watching one GPU's utilization. */
function watchOnWire(serverUrl: string, token: string, uuidOf: (gpus: LiveGpu[]) => string | null) {
  const sightings: ViewerSighting[] = [];
  let gpus: Record<string, LiveGpu> = {};
  let slots: SlotTable = {};
  let measured: string | null = null;
  let last: number | null = null;
  const socket: Socket<LiveServerToClient, LiveClientToServer> = io(new URL(LIVE_NAMESPACE, serverUrl).toString(), {
    auth: { token, v: LIVE_FORMAT_VERSION },
    transports: ["websocket"],
  });
  socket.on("fleet:snapshot", (snapshot: FleetSnapshotWire) => {
    gpus = {};
    slots = {};
    snapshot.gpus.forEach((gpu, index) => {
      gpus[gpu.uuid] = gpu;
      slots[snapshot.slots[index]!] = gpu.uuid;
    });
    measured = uuidOf(snapshot.gpus);
  });
  socket.on("fleet:delta", (wire: FleetDeltaWire) => {
    const viewerAt = Date.now();
    const delta = expandFleetDelta(wire, gpus, slots);
    for (const gpu of delta.gpus) gpus[gpu.uuid] = gpu;
    measured ??= uuidOf(Object.values(gpus));
    const gpu = measured === null ? undefined : delta.gpus.find((entry) => entry.uuid === measured);
    const decodedAt = Date.now();
    const value = gpu?.utilizationGpuPct ?? null;
    if (gpu && value !== null && value !== last) {
      last = value;
      sightings.push({ value, sampledAt: Date.parse(gpu.sampledAt), deltaAt: wire.t, viewerAt, decodedAt });
    }
  });
  return { sightings, ready: () => measured !== null, close: () => socket.close() };
}

/**
 * Runs in the page before its scripts: the time each `fleet:delta` frame
 * reaches the page's WebSocket, by the delta's `t`. A string, not a
 * function: tsx would name an inner callback with a helper the page lacks.
 */
const PAGE_FRAMES = `
  window.__latency = { frames: {}, paints: [] };
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        const at = Date.now();
        if (typeof event.data !== "string" || !event.data.includes('"fleet:delta"')) return;
        try {
          const t = JSON.parse(event.data.slice(event.data.indexOf("[")))[1].t;
          window.__latency.frames[t] = at;
        } catch {}
      });
    }
  };
`;

/** In the page: each new text of the card's utilization, and the time of the animation frame that drew it. */
const WATCH_CARD = (label: string) => `(() => {
  const card = document.querySelector(${JSON.stringify(`article[aria-label="${label}"]`)});
  if (!card) return false;
  const text = () => card.querySelector('[data-testid="gpu-util"]')?.textContent ?? "";
  let shown = text();
  new MutationObserver(() => {
    const now = text();
    if (now === shown) return;
    shown = now;
    const mutatedAt = Date.now();
    requestAnimationFrame(() => window.__latency.paints.push({ text: now, mutatedAt, paintedAt: Date.now() }));
  }).observe(card, { subtree: true, childList: true, characterData: true });
  return true;
})()`;

async function openFleetPage(browser: Browser, origin: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1920, height: 1080 }, baseURL: origin });
  await context.addInitScript(PAGE_FRAMES);
  const page = await context.newPage();
  const response = await page.request.post("/api/auth/sign-in/username", { data: MEMBER, headers: { origin } });
  if (!response.ok()) throw new Error(`sign-in failed: ${response.status()} ${await response.text()}`);
  await page.goto("/");
  const card = page.locator(`article[aria-label="GPU 0 on ${REAL_HOST}"]`);
  await card.waitFor({ timeout: 120_000 });
  // On screen: a card off screen takes new readings only every few seconds (components/fleet/fleet-card.tsx).
  await card.scrollIntoViewIfNeeded();
  if (!(await page.evaluate<boolean>(WATCH_CARD(`GPU 0 on ${REAL_HOST}`)))) throw new Error("the measured card is not on the page");
  return page;
}

/** One setting: a fresh database and server, the agents, the viewer (and the page), then `changes` changes. */
async function runSetting(gpus: number, options: LatencyOptions, browser: Browser | null): Promise<LatencySettingResult> {
  const { log, intervalMs } = options;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `gpudesk-latency-${gpus}-`));
  const simulatedGpus = Math.max(0, gpus - REAL_GPUS);
  const workers: ChildProcess[] = [];
  let server: RunningServer | null = null;
  let viewer: ReturnType<typeof watchOnWire> | null = null;
  try {
    const database = prepareDatabase(dataDir, simulatedGpus, 42, {}, REAL_HOST);
    server = await startServer(dataDir, options.port, 0, {}, { cpuProfileDir: null, alerts: false, socketDeflate: false, nice: 0 }, log);
    const recording = path.join(dataDir, "recording");
    recordingWithGpus(recording);
    const setFile = path.join(dataDir, "set.txt");
    const tickLog = path.join(dataDir, "ticks.log");
    const setValue = utilizationSetter(setFile);
    setValue(1);
    if (simulatedGpus > 0) {
      const config: AgentWorkerConfig = { seed: 42, gpus: simulatedGpus, intervalMs, hosts: database.hosts.map((host) => ({ ...host, serverUrl: server!.url })) };
      const simulated = startWorker<{ type: string; count?: number }>("agent-worker.ts", config, 0, log, null);
      workers.push(simulated.child);
      await simulated.waitFor((m) => m.type === "connected" && (m.count ?? 0) >= database.hosts.length, 120_000, "the simulated agents");
    }
    const agentConfig: LatencyAgentConfig = {
      serverUrl: server.url,
      token: database.extraHost!.token,
      hostName: REAL_HOST,
      intervalMs,
      nvidiaSmi: path.join(repoRoot, "scripts", "fake-nvidia-smi.mjs"),
      env: { FAKE_NVIDIA_SMI_DIR: recording, FAKE_NVIDIA_SMI_SET: setFile, FAKE_NVIDIA_SMI_TICK_LOG: tickLog },
    };
    const agent = startWorker<{ type: string; readings?: AgentReadingTimes[] }>("latency-agent.ts", agentConfig, 0, log, null);
    workers.push(agent.child);
    await agent.waitFor((m) => m.type === "connected", 60_000, "the real agent's connection");

    viewer = watchOnWire(server.url, database.memberToken, (list) => list.find((gpu) => gpu.hostName === REAL_HOST && gpu.index === 0)?.uuid ?? null);
    const page = browser ? await openFleetPage(browser, server.url) : null;
    const ready = Date.now() + 60_000;
    while (!viewer.ready() && Date.now() < ready) await sleep(200);
    if (!viewer.ready()) throw new Error(`the viewer never saw GPU 0 of ${REAL_HOST}`);
    log(`  ${gpus} GPUs (${REAL_GPUS} through the real agent), agents every ${intervalMs} ms; ${options.changes} changes`);

    const loadBefore = os.loadavg();
    const changes: { value: number; changeAt: number }[] = [];
    for (let k = 0; k < options.changes; k++) {
      // A random phase against nvidia-smi's tick and the agents' clocks.
      await sleep(intervalMs * (1 + Math.random()));
      const value = 10 + 3 * k;
      const changeAt = Date.now();
      setValue(value);
      changes.push({ value, changeAt });
      const deadline = changeAt + SEEN_WITHIN_MS;
      const shown = async () =>
        viewer!.sightings.some((s) => s.value === value) &&
        (page === null || (await page.evaluate<boolean>(`window.__latency.paints.some((p) => p.text === "${value}%")`)));
      while (!(await shown()) && Date.now() < deadline) await sleep(20);
    }
    const loadAfter = os.loadavg();

    agent.child.send({ type: "report" });
    const asked = agent.messages.length;
    const report = await agent.waitFor((m) => m.type === "report" && agent.messages.indexOf(m) >= asked, 30_000, "the real agent's report");
    const readings = new Map((report.readings ?? []).map((entry) => [entry.sampledAt, entry]));
    const ticks = readFileSync(tickLog, "utf8").split("\n").filter(Boolean);
    const seenInPage = page
      ? await page.evaluate<{ frames: Record<string, number>; paints: { text: string; paintedAt: number }[] }>("window.__latency")
      : null;
    const traces: ChangeTrace[] = changes.map(({ value, changeAt }) => {
      const sighting = viewer!.sightings.find((s) => s.value === value && s.viewerAt >= changeAt) ?? null;
      const times = sighting ? (readings.get(sighting.sampledAt) ?? null) : null;
      const paint = seenInPage?.paints.find((p) => p.text === `${value}%` && p.paintedAt >= changeAt) ?? null;
      return {
        changeAt,
        lineAt: firstTickCarrying(ticks, changeAt, FIELD, `${value} %`),
        readEndAt: times?.readEndAt ?? null,
        sendAt: times?.sendAt ?? null,
        ackAt: times?.ackAt ?? null,
        deltaAt: sighting?.deltaAt ?? null,
        viewerAt: sighting?.viewerAt ?? null,
        decodedAt: sighting?.decodedAt ?? null,
        pageAt: sighting && seenInPage ? (seenInPage.frames[String(sighting.deltaAt)] ?? null) : null,
        paintedAt: paint?.paintedAt ?? null,
      };
    });
    await page?.context().close();
    return {
      gpus,
      intervalMs,
      changes: options.changes,
      seenOnWire: traces.filter((trace) => trace.decodedAt !== null).length,
      painted: page ? traces.filter((trace) => trace.paintedAt !== null).length : null,
      stages: summarizeStages(traces),
      traces: traces.map(({ changeAt, ...stamps }) =>
        Object.fromEntries(Object.entries(stamps).map(([name, at]) => [name.replace(/At$/, ""), at === null ? null : at - changeAt])),
      ),
      loadAverage: { before: loadBefore, after: loadAfter },
    };
  } finally {
    viewer?.close();
    await Promise.all(workers.map((child) => stopProcess(child, { type: "stop" })));
    if (server) await stopProcess(server.child);
    if (process.env.GPUDESK_BENCH_KEEP !== "1") rmSync(dataDir, { recursive: true, force: true });
    else log(`  kept ${dataDir}`);
  }
}

/** Every setting in turn; one Chromium for all of them. */
export async function runLatencyBench(options: LatencyOptions): Promise<LatencySettingResult[]> {
  const browser = options.browser
    ? await chromium.launch({
        executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
        args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
      })
    : null;
  const results: LatencySettingResult[] = [];
  try {
    for (const gpus of options.gpus) {
      const result = await runSetting(gpus, options, browser);
      results.push(result);
      options.log(formatSetting(result));
    }
  } finally {
    await browser?.close();
  }
  return results;
}

const ms = (value: number) => (Number.isNaN(value) ? "—" : `${Math.round(value)}`);

/** A setting's table: each stage's p50 and p90 in ms. */
export function formatSetting(result: LatencySettingResult): string {
  const painted = result.painted === null ? "" : `, painted ${result.painted}`;
  const lines = [
    `\n${result.gpus} GPUs, agents every ${result.intervalMs} ms: ${result.changes} changes, seen on the wire ${result.seenOnWire}${painted}; load ${result.loadAverage.before.map((l) => l.toFixed(2)).join(" ")}`,
    "| stage | n | p50 ms | p90 ms | max ms |",
    "|---|---:|---:|---:|---:|",
    ...result.stages.map((stage) => `| ${stage.name} | ${stage.count} | ${ms(stage.p50)} | ${ms(stage.p90)} | ${ms(stage.max)} |`),
  ];
  return lines.join("\n");
}
