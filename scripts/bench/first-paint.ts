/**
 * How soon the fleet page shows live values after navigation, stage by
 * stage, and the wall display's first paint (issue 52: ≤ 1 s at 160 GPUs on
 * two cores). Prints figures; not a timed test.
 *
 *   npx tsx scripts/bench/first-paint.ts [--gpus 160] [--runs 5] [--port 3501]
 *
 * The production server of the e2e suite (e2e/display-server.ts: the
 * simulated fleet in-process, a build first if the checkout has none) and
 * Chromium (/usr/bin/chromium, or CHROMIUM_PATH). Each run is a new browser
 * context, as a new visitor: no HTTP cache, a session cookie from signing
 * in through the API, then `page.goto`. Times are from the navigation's
 * start (the page's `performance.timeOrigin`):
 *
 * - first byte: the document's `responseStart`;
 * - DOM ready: `domContentLoadedEventEnd`;
 * - hydrated: `<html data-hydrated>` set (components/hydration-gate.tsx);
 * - socket: socket.io's first request, its first message (long-polling or WebSocket), and
 *   the snapshot (the first message over 8 KB; the feed's deltas are smaller);
 * - live: the first host's status on the page (`host-status`, drawn from
 *   the socket's snapshot), and painted: the frame after it.
 *
 * The wall display: the same up to its first tile (`display-tile`).
 * Results: bench-results/<time>-first-paint-<gpus>.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "@playwright/test";
import { addPerson, createDisplayToken, startDisplayServer, type DisplayServer } from "../../e2e/display-server";
import { argsOrExit, flag } from "./args";
import { repoRoot } from "./scenario";

const USAGE = "usage: npx tsx scripts/bench/first-paint.ts [--gpus 160] [--runs 5] [--port 3501]";
const { flags } = argsOrExit(process.argv.slice(2), { gpus: flag.whole(160, { min: 1, max: 10_000 }), runs: flag.whole(5, { min: 1, max: 50 }), port: flag.whole(0, { min: 0, max: 65_535 }) }, USAGE);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Stage times a page records about itself from its first script on (ms since navigation start). */
const STAGE_RECORDER = `(() => {
  const t = (window.__stages = {});
  const seen = (name) => { if (t[name] === undefined) t[name] = performance.now(); };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      if (String(args[0]).includes("/socket.io/")) seen("socketRequested");
      this.addEventListener("message", (event) => {
        seen("socketFirstMessage");
        const size = typeof event.data === "string" ? event.data.length : (event.data.byteLength ?? event.data.size ?? 0);
        if (size > 8192) seen("snapshot");
      });
    }
  };
  // Before the upgrade to a WebSocket, socket.io's first packets come by HTTP long-polling (XMLHttpRequest).
  const open = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (method, url, ...rest) {
    if (String(url).includes("/socket.io/")) {
      seen("socketRequested");
      this.addEventListener("load", () => {
        seen("socketFirstMessage");
        if ((this.responseText ?? "").length > 8192) seen("snapshot");
      });
    }
    return open.call(this, method, url, ...rest);
  };
  const check = () => {
    if (document.documentElement.hasAttribute("data-hydrated")) seen("hydrated");
    for (const [name, testId] of [["live", "host-status"], ["live", "display-tile"]]) {
      if (t[name] === undefined && document.querySelector('[data-testid="' + testId + '"]')) {
        seen(name);
        requestAnimationFrame(() => requestAnimationFrame(() => seen("painted")));
      }
    }
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-hydrated"] });
})();`;

interface Stages {
  firstByte: number;
  domReady: number;
  hydrated: number | null;
  socketRequested: number | null;
  socketFirstMessage: number | null;
  snapshot: number | null;
  live: number | null;
  painted: number | null;
}

const STAGES: (keyof Stages)[] = ["firstByte", "domReady", "hydrated", "socketRequested", "socketFirstMessage", "snapshot", "live", "painted"];

async function measure(browser: Browser, origin: string, pagePath: string, ready: string, signIn: { username: string; password: string } | null): Promise<Stages> {
  const context = await browser.newContext({ viewport: { width: 1920, height: 1080 }, baseURL: origin });
  try {
    if (signIn) {
      const response = await context.request.post("/api/auth/sign-in/username", { data: signIn, headers: { origin } });
      if (!response.ok()) throw new Error(`sign-in failed: ${response.status()} ${await response.text()}`);
    }
    await context.addInitScript(STAGE_RECORDER);
    const page = await context.newPage();
    await page.goto(pagePath);
    await page.getByTestId(ready).first().waitFor({ timeout: 60_000 });
    // Scripts as text: tsx's transform would name the functions with a helper the page does not have.
    await page.waitForFunction("window.__stages.painted !== undefined", undefined, { timeout: 10_000 });
    return (await page.evaluate(`(() => {
      const nav = performance.getEntriesByType("navigation")[0];
      const t = window.__stages;
      const at = (name) => (t[name] === undefined ? null : Math.round(t[name]));
      return {
        firstByte: Math.round(nav.responseStart),
        domReady: Math.round(nav.domContentLoadedEventEnd),
        hydrated: at("hydrated"),
        socketRequested: at("socketRequested"),
        socketFirstMessage: at("socketFirstMessage"),
        snapshot: at("snapshot"),
        live: at("live"),
        painted: at("painted"),
      };
    })()`)) as Stages;
  } finally {
    await context.close();
  }
}

async function main(): Promise<void> {
  let server: DisplayServer | null = null;
  let browser: Browser | null = null;
  const results: Record<string, unknown> = { gpus: flags.gpus, runs: flags.runs, startedAt: new Date().toISOString() };
  try {
    server = await startDisplayServer({ gpus: flags.gpus, ...(flags.port ? { port: flags.port } : {}) });
    const person = { username: "firstpaint", password: "first-paint-password" };
    addPerson(server.dataDir, person);
    const token = createDisplayToken(server.dataDir, "first-paint-wall");
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu", "--no-first-run"] });
    console.log(`first paint, ${flags.gpus} simulated GPUs, ${flags.runs} runs each (a new visitor each), ms from the navigation's start; median (min–max)`);
    const targets = [
      { name: "fleet page (/)", path: "/", ready: "host-status", signIn: person },
      { name: "wall display (/display)", path: `/display?token=${encodeURIComponent(token)}`, ready: "display-tile", signIn: null },
    ];
    // One warm-up visit each: the server's first render of a route compiles nothing, but loads its modules.
    for (const target of targets) await measure(browser, server.url, target.path, target.ready, target.signIn);
    for (const target of targets) {
      const runs: Stages[] = [];
      for (let i = 0; i < flags.runs; i++) runs.push(await measure(browser, server.url, target.path, target.ready, target.signIn));
      const summary = Object.fromEntries(
        STAGES.map((stage) => {
          const values = runs.map((run) => run[stage]).filter((value): value is number => value !== null);
          return [stage, values.length === 0 ? null : { median: median(values), min: Math.min(...values), max: Math.max(...values) }];
        }),
      );
      results[target.name] = { runs, summary };
      console.log(`\n  ${target.name}`);
      for (const [stage, value] of Object.entries(summary)) {
        console.log(`    ${stage.padEnd(20)} ${value ? `${String(value.median).padStart(6)} (${value.min}–${value.max})` : "     –"}`);
      }
    }
    const out = path.join(repoRoot, "bench-results");
    mkdirSync(out, { recursive: true });
    const file = path.join(out, `${new Date().toISOString().slice(0, 16).replace(/:/g, "-")}-first-paint-${flags.gpus}.json`);
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`\nresults: ${path.relative(repoRoot, file)}`);
  } finally {
    await browser?.close();
    await server?.dispose();
  }
}

await main();
