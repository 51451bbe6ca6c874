import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";

/** The server under test: production build, its own database, the simulated fleet. */
export const E2E_PORT = Number(process.env.E2E_PORT ?? 3217);
export const E2E_DATA_DIR = path.join(os.tmpdir(), `gpudesk-e2e-${E2E_PORT}`);
/**
 * A LAN-style name for the server: the browser resolves it to 127.0.0.1
 * (--host-resolver-rules below), so specs can sign in as a lab would, over
 * plain HTTP on a name that is not localhost (where browsers drop Secure
 * cookies). Playwright's `request` fixture resolves names itself and cannot
 * use it, which is why baseURL stays 127.0.0.1.
 */
export const E2E_LAN_ORIGIN = `http://gpudesk.test:${E2E_PORT}`;
/**
 * The browser: Chromium's headless shell where it is installed (Debian's
 * `chromium-headless-shell`, the build Playwright itself runs headless), else
 * the full browser in its headless mode. The shell renders the same pages
 * with 30 % less CPU for the whole spec run (fleet and display specs: 31–35
 * against 46–49 CPU seconds, server and runner included, 7 December), and
 * the suite is CPU-bound on two cores. CHROMIUM_PATH picks another.
 */
const chromium = process.env.CHROMIUM_PATH ?? ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium"].find((candidate) => existsSync(candidate)) ?? "/usr/bin/chromium";
/**
 * The SMTP server the e2e server sends its mail to (e2e/smtp-global-setup.ts
 * starts it; each mail that arrives is kept as JSON in E2E_MAIL_DIR for specs
 * to read). Default: E2E_PORT + 144 (3316 → 3460); set E2E_SMTP_PORT to move it.
 */
export const E2E_SMTP_PORT = Number(process.env.E2E_SMTP_PORT ?? E2E_PORT + 144);
export const E2E_MAIL_DIR = path.join(os.tmpdir(), `gpudesk-e2e-mail-${E2E_PORT}`);
/** Playwright's JSON report of the run: scripts/test-suite.ts prints the slowest specs from it. */
export const E2E_REPORT_FILE = process.env.E2E_REPORT_FILE ?? path.join(".test-reports", "e2e.json");

/**
 * Two lanes run side by side (two workers on two cores: the specs mostly
 * wait on the server and the browser), each one spec file at a time:
 * - "fleet": specs that book or read the shared simulated hosts (sim-*) or
 *   book "any N" GPUs; one at a time, so that they never take each other's
 *   GPUs. A new spec lands here unless it is listed below.
 * - "own": specs that bring their own hosts, servers or accounts and book
 *   nothing of the shared fleet. Such a spec may also run in the fleet lane
 *   (it takes nothing from the others there): display-stale does, on a
 *   server of its own, so that the lanes end together (7 December: the own
 *   lane ran 1,235 s against the fleet's 971 s with both in own, 585 s
 *   against 738 s with demo-to-lab moved too).
 * - "serial", after both: specs that change what every spec lives under
 *   (the idle-release policy, exemptions of every host).
 * `npm test` (scripts/test-suite.ts) runs the serial lane as a run of its
 * own, beside the unit tests, once the other two are done: its spec waits on
 * the idle rule's passes more than it computes.
 */
const OWN_LANE = [
  "accounts-mail.spec.ts",
  "accounts-ui.spec.ts",
  "agent.spec.ts",
  "alerts.spec.ts",
  "demo-to-lab.spec.ts",
  "booking-proof.spec.ts",
  "display-fleet.spec.ts",
  "display-free-now.spec.ts",
  "display-overview.spec.ts",
  "fleet-scale.spec.ts",
  "mig-slices.spec.ts",
  "booking-pages.spec.ts",
  "security.spec.ts",
  "slurm-admin-hosts.spec.ts",
  "sso.spec.ts",
];
// Not listed, so in the fleet lane though it has a server of its own (above): display-stale.spec.ts.
const SERIAL_LANE = ["idle-release.spec.ts"];

export default defineConfig({
  testDir: "e2e",
  globalSetup: "./e2e/smtp-global-setup.ts",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  reporter: [["list"], ["json", { outputFile: E2E_REPORT_FILE }]],
  // A run of one lane beside another (scripts/test-suite.ts) keeps its own folder: each run empties its outputDir first.
  outputDir: process.env.E2E_OUTPUT_DIR ?? "test-results",
  use: {
    baseURL: `http://127.0.0.1:${E2E_PORT}`,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: chromium,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--host-resolver-rules=MAP gpudesk.test 127.0.0.1",
      ],
    },
  },
  projects: [
    { name: "fleet", testIgnore: [...OWN_LANE, ...SERIAL_LANE], workers: 1, use: { ...devices["Desktop Chrome"], channel: undefined } },
    { name: "own", testMatch: OWN_LANE, workers: 1, use: { ...devices["Desktop Chrome"], channel: undefined } },
    { name: "serial", testMatch: SERIAL_LANE, dependencies: ["fleet", "own"], workers: 1, use: { ...devices["Desktop Chrome"], channel: undefined } },
  ],
  webServer: {
    // A fresh database per run; the first start also builds the app.
    command: `rm -rf "${E2E_DATA_DIR}" && node bin/gpudesk.js serve`,
    url: `http://127.0.0.1:${E2E_PORT}/api/health`,
    timeout: 300_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      PORT: String(E2E_PORT),
      HOST: "127.0.0.1",
      GPUDESK_DATA_DIR: E2E_DATA_DIR,
      GPUDESK_LOCAL_AGENT: "simulated",
      // A demo server: the first-admin question "demo or lab?" is e2e/demo-to-lab.spec.ts's, on a server of its own.
      GPUDESK_DEMO: "keep",
      // The simulated jobs come and go over the day; from this instant the training job on
      // sim-h100-a GPUs 0-3 (with another user's process on GPU 2) runs for over an hour.
      GPUDESK_SIM_TIME: "2026-11-30T00:00:00Z",
      GPUDESK_OFFLINE_AFTER_MS: "3000",
      // Every test signs in from 127.0.0.1; the per-address limit is tested in unit tests.
      GPUDESK_SIGNIN_PER_MINUTE: "10000",
      // e2e/alerts.spec.ts runs its webhook receiver on this machine: personal webhooks may reach it.
      GPUDESK_WEBHOOK_PRIVATE_TARGETS: "127.0.0.1",
      // Alert hold times in seconds (defaults: 60 s and 30 min), so that e2e/alerts.spec.ts sees them open.
      GPUDESK_ALERT_CONFLICT_AFTER: "3s",
      GPUDESK_ALERT_IDLE_AFTER: "5s",
      // Idle decisions read stored minutes (server/idle-release/): written every 5 s here rather than 30 s.
      GPUDESK_ROLLUP_FLUSH_SECONDS: "5",
      // Mail goes to the SMTP server of e2e/smtp-global-setup.ts (no GPUDESK_PUBLIC_URL: other specs test without one).
      GPUDESK_SMTP_URL: `smtp://127.0.0.1:${E2E_SMTP_PORT}`,
      GPUDESK_SMTP_FROM: "gpudesk e2e <gpudesk@e2e.test>",
    },
  },
});
