/**
 * Soak test of the wall display: does the page's memory stay flat while
 * updates keep coming? Starts its own gpudesk server (simulated fleet,
 * agents sampling fast), opens /display with a display token in headless
 * Chromium, and measures the JS heap after a forced garbage collection at
 * the start, along the way, and at the end, with the DOM node and event
 * listener counts (bounded state shows as flat lines in all three).
 *
 *   npx tsx scripts/soak-display.ts [--minutes 5] [--gpus 96] [--interval-ms 100] [--cut-every 60]
 *
 * The server sends one delta per second however fast the agents sample (its
 * tick is fixed); a faster sample interval makes each delta carry more
 * history points. `--cut-every N` takes the page offline for 12 s every N
 * seconds, so that the stale banner, the reconnect and the fresh snapshot
 * are soaked too. Exits 1 if the heap grew by more than 25 % + 1 MiB.
 */
import { chromium, type CDPSession } from "@playwright/test";
import { createDisplayToken, startDisplayServer } from "../e2e/display-server";

interface Options {
  minutes: number;
  gpus: number;
  intervalMs: number;
  cutEverySeconds: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { minutes: 5, gpus: 96, intervalMs: 100, cutEverySeconds: 60 };
  for (let i = 0; i < argv.length; i += 2) {
    const value = Number(argv[i + 1]);
    if (!Number.isFinite(value) || value < 0) throw new Error(`${argv[i]} needs a number, got ${argv[i + 1]}`);
    if (argv[i] === "--minutes") options.minutes = value;
    else if (argv[i] === "--gpus") options.gpus = Math.round(value);
    else if (argv[i] === "--interval-ms") options.intervalMs = Math.max(100, Math.round(value));
    else if (argv[i] === "--cut-every") options.cutEverySeconds = value;
    else throw new Error(`unknown option ${argv[i]}`);
  }
  return options;
}

interface Sample {
  atS: number;
  heapUsedMiB: number;
  heapTotalMiB: number;
  nodes: number;
  listeners: number;
}

async function measure(cdp: CDPSession, startedAt: number): Promise<Sample> {
  await cdp.send("HeapProfiler.collectGarbage");
  const heap = await cdp.send("Runtime.getHeapUsage");
  const counters = await cdp.send("Memory.getDOMCounters");
  return {
    atS: Math.round((Date.now() - startedAt) / 1000),
    heapUsedMiB: heap.usedSize / 2 ** 20,
    heapTotalMiB: heap.totalSize / 2 ** 20,
    nodes: counters.nodes,
    listeners: counters.jsEventListeners,
  };
}

function line(label: string, sample: Sample): string {
  return `${label.padEnd(6)} t=${String(sample.atS).padStart(4)} s  heap used ${sample.heapUsedMiB.toFixed(2)} MiB (of ${sample.heapTotalMiB.toFixed(2)})  DOM nodes ${sample.nodes}  listeners ${sample.listeners}`;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const durationMs = options.minutes * 60_000;
  console.log(`soak: ${options.gpus} GPUs, agents sampling every ${options.intervalMs} ms, ${options.minutes} min, network cut every ${options.cutEverySeconds || "never"} s`);

  const server = await startDisplayServer({ gpus: options.gpus, sampleIntervalMs: options.intervalMs });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  let exitCode = 0;
  try {
    const token = createDisplayToken(server.dataDir, "soak");
    const context = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    // Pages turn every 3 s, so that mounting and unmounting tiles is soaked as well.
    await page.goto(`${server.url}/display?token=${encodeURIComponent(token)}&rotate=3`);
    await page.getByTestId("display-tile").first().waitFor({ timeout: 60_000 });

    // Let the first minute's one-off work (code loading, caches filling) settle before the baseline.
    await page.waitForTimeout(20_000);
    const startedAt = Date.now();
    const first = await measure(cdp, startedAt);
    console.log(line("start", first));

    const samples = [first];
    let nextCut = options.cutEverySeconds > 0 ? startedAt + options.cutEverySeconds * 1000 : Number.POSITIVE_INFINITY;
    let cuts = 0;
    let recovered = 0;
    while (Date.now() - startedAt < durationMs) {
      if (Date.now() >= nextCut && Date.now() - startedAt + 45_000 < durationMs) {
        await context.setOffline(true);
        await page.waitForTimeout(12_000);
        const sawBanner = await page.getByTestId("display-stale-banner").isVisible();
        await context.setOffline(false);
        cuts += 1;
        await page
          .getByTestId("display-stale-banner")
          .waitFor({ state: "detached", timeout: 30_000 })
          .then(() => (recovered += sawBanner ? 1 : 0))
          .catch(() => console.log("  the banner did not go within 30 s of the network coming back"));
        nextCut = Date.now() + options.cutEverySeconds * 1000;
        continue;
      }
      await page.waitForTimeout(Math.min(30_000, Math.max(1_000, durationMs - (Date.now() - startedAt))));
      const sample = await measure(cdp, startedAt);
      samples.push(sample);
      console.log(line("", sample));
    }

    // The last sample is taken in steady state, never in the middle of a cut.
    await page.waitForTimeout(5_000);
    const last = await measure(cdp, startedAt);
    const updated = await page.getByTestId("display-updated").innerText();
    console.log(line("end", last));
    const growth = last.heapUsedMiB - first.heapUsedMiB;
    console.log(
      `heap: start ${first.heapUsedMiB.toFixed(2)} MiB, end ${last.heapUsedMiB.toFixed(2)} MiB (${growth >= 0 ? "+" : ""}${growth.toFixed(2)} MiB, ${((growth / first.heapUsedMiB) * 100).toFixed(1)} %); ` +
        `peak ${Math.max(...samples.map((s) => s.heapUsedMiB)).toFixed(2)} MiB; DOM nodes ${first.nodes} → ${last.nodes}; listeners ${first.listeners} → ${last.listeners}; ` +
        `network cuts ${cuts} (stale banner shown and gone ${recovered}); page still live: ${updated}`,
    );
    if (last.heapUsedMiB > first.heapUsedMiB * 1.25 + 1) {
      console.log("FAIL: the heap grew");
      exitCode = 1;
    } else {
      console.log("OK: the heap did not grow");
    }
  } finally {
    await browser.close();
    await server.dispose();
  }
  process.exit(exitCode);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
