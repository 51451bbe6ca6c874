import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "@/server/core/paths";
import { FleetState } from "@/server/fleet/fleet-state";
import { createIngest } from "@/server/fleet/ingest";
import { serveRoutes } from "@/server/testing/route-server";
import { makeGpu, makeProcess, makeSnapshot, uniqueName } from "@/server/testing/factories";
import { testDatabaseProvider, useTestDatabase } from "@/server/testing/test-db";

/**
 * The lab's own monitoring, as a lab runs it: a real Prometheus (Debian's
 * `prometheus` package; .ci/run installs it) scrapes gpudesk's /metrics over
 * HTTP with an admin's token, and every query of the shipped Grafana
 * dashboard (deploy/grafana/) must return series from it. The shipped alert
 * rules (deploy/prometheus/) pass `promtool` and their own rule tests.
 */

const DASHBOARD = path.join(repoRoot, "deploy", "grafana", "gpudesk-dashboard.json");
const RULES_DIR = path.join(repoRoot, "deploy", "prometheus");
/** Names renamed since they were published: still answered (deprecated), never used by what gpudesk ships. */
const DEPRECATED_METRICS = ["gpudesk_gpu_holder_info"];
// .ci/run sets it: there a missing Prometheus fails the run rather than skipping these tests.
const REQUIRED = process.env.GPUDESK_TEST_PROMETHEUS_REQUIRED === "1";
// The scrape reads the same rows on either database: once is enough (the "postgres" project skips it).
const runs = testDatabaseProvider() === "sqlite";
const installed = runs && spawnSync("prometheus", ["--version"]).status === 0 && spawnSync("promtool", ["--version"]).status === 0;
if (runs && !installed) {
  if (REQUIRED) throw new Error("prometheus and promtool are not installed (Debian's prometheus package; GPUDESK_TEST_PROMETHEUS_REQUIRED=1)");
  console.warn("SKIPPED: the Prometheus tests: prometheus/promtool not on PATH (apt-get install prometheus)");
}

/** Every PromQL expression of the dashboard, its variables filled as Grafana fills "All" (`label_values(m, l)` queries m). */
function dashboardQueries(): { where: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, "utf8")) as {
    panels: { title: string; targets?: { expr?: string }[] }[];
    templating: { list: { name: string; type: string; query?: { query?: string } | string }[] };
  };
  const fill = (expr: string) => expr.replaceAll("$Hostname", ".+").replaceAll("$gpu", ".+");
  const queries: { where: string; expr: string }[] = [];
  for (const variable of dashboard.templating.list) {
    if (variable.type !== "query") continue;
    const text = typeof variable.query === "string" ? variable.query : (variable.query?.query ?? "");
    const labelValues = /^label_values\((.+),\s*(\w+)\)$/.exec(text);
    if (labelValues) queries.push({ where: `variable $${variable.name}`, expr: fill(labelValues[1]!) });
  }
  for (const panel of dashboard.panels) {
    for (const target of panel.targets ?? []) if (target.expr) queries.push({ where: `panel "${panel.title}"`, expr: fill(target.expr) });
  }
  return queries;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(Number(process.env.GPUDESK_TEST_PROMETHEUS_PORT ?? 0), "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

async function promQuery(base: string, expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const response = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await response.json()) as { status: string; error?: string; data?: { result: { metric: Record<string, string>; value: [number, string] }[] } };
  if (body.status !== "success") throw new Error(`Prometheus refused ${expr}: ${body.error}`);
  return body.data!.result;
}

let prometheus: ChildProcess | null = null;
let prometheusLog = "";
let promBase = "";
let closeGpudesk: (() => Promise<void>) | null = null;
let workDir = "";
let bookedBy = "";

beforeAll(async () => {
  if (!installed) return;
  await useTestDatabase();
  // After the test database is chosen: these read it.
  const [{ setRuntime }, { createUser }, { createPersonalToken }, { ensureLocalHost, recordHostInventory }, { db }, { GET }] = await Promise.all([
    import("@/server/runtime/runtime"),
    import("@/server/auth/users"),
    import("@/server/auth/tokens"),
    import("@/server/hosts/host-registry"),
    import("@/server/core/db"),
    import("@/app/metrics/route"),
  ]);

  // A host with two GPUs, one of them booked and both running something, as the dashboard's panels expect of a lab.
  const fleet = new FleetState({ offlineAfterMs: 600_000, simulated: false });
  const ingest = createIngest(fleet);
  const stats = { pending: 3, flushes: 1, failedFlushes: 0, droppedMinutes: 0, recountedHours: 0, lastFlushAt: Date.now(), lastFlushMs: 4, lastPruneAt: null };
  setRuntime({ fleet, ingest, disconnectAgents: () => {}, history: { stats: () => stats } });
  const admin = await createUser({ username: uniqueName("promadmin").replace(/-/g, ""), password: "admin-password", role: "admin" });
  const member = await createUser({ username: uniqueName("prommember").replace(/-/g, ""), password: "member-password" });
  bookedBy = member.username;
  const token = (await createPersonalToken(admin.id, "prometheus")).token;
  const host = await ensureLocalHost(uniqueName("promnode"), false);
  const gpus = [makeGpu({ index: 0, utilizationGpuPct: 3 }), makeGpu({ index: 1, pciBusId: "00000000:18:00.0", utilizationGpuPct: 91 })];
  const snapshot = makeSnapshot(gpus, Date.now(), {
    host: { name: host.name, driverVersion: "580.159.04", cudaVersion: "13.0" },
    processes: [makeProcess(gpus[0]!, { user: "carol" }), makeProcess(gpus[1]!, { pid: 4343, user: "dave" })],
  });
  await recordHostInventory(host.id, snapshot.host, snapshot.gpus, new Date());
  fleet.connectHost(host.id, host.name, false);
  expect((await ingest.ingestBatch(host, [snapshot])).accepted).toBe(1);
  const gpuRow = await db().gpu.findUniqueOrThrow({ where: { uuid: gpus[0]!.uuid }, select: { id: true } });
  const startsAt = new Date(Date.now() - 3_600_000);
  const endsAt = new Date(Date.now() + 3_600_000);
  await db().reservation.create({
    data: { userId: member.id, hostId: host.id, startsAt, endsAt, purpose: "prometheus test", gpus: { create: [{ gpuId: gpuRow.id, startsAt, endsAt }] } },
  });

  const gpudesk = await serveRoutes({ "GET /metrics": GET });
  closeGpudesk = gpudesk.close;
  workDir = mkdtempSync(path.join(os.tmpdir(), "gpudesk-prometheus-"));
  writeFileSync(path.join(workDir, "token"), token);
  // As docs/operations.md tells a lab to scrape: a bearer token of an admin; once a second here.
  writeFileSync(
    path.join(workDir, "prometheus.yml"),
    [
      "global: { scrape_interval: 1s, evaluation_interval: 1s }",
      "scrape_configs:",
      "  - job_name: gpudesk",
      `    authorization: { type: Bearer, credentials_file: ${path.join(workDir, "token")} }`,
      `    static_configs: [{ targets: ["${new URL(gpudesk.url).host}"] }]`,
      "",
    ].join("\n"),
  );
  const port = await freePort();
  promBase = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    "prometheus",
    [`--config.file=${path.join(workDir, "prometheus.yml")}`, `--storage.tsdb.path=${path.join(workDir, "data")}`, `--web.listen-address=127.0.0.1:${port}`],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  for (const stream of [prometheus.stdout!, prometheus.stderr!]) stream.on("data", (chunk: Buffer) => (prometheusLog = (prometheusLog + chunk.toString()).slice(-6000)));

  // Ready once three scrapes of gpudesk succeeded: rate() over the counters needs two samples.
  const deadline = Date.now() + 45_000;
  for (;;) {
    const scrapes = await promQuery(promBase, 'count_over_time(up{job="gpudesk"}[1m])').catch(() => []);
    const up = await promQuery(promBase, 'up{job="gpudesk"}').catch(() => []);
    if (Number(scrapes[0]?.value[1] ?? 0) >= 3 && up[0]?.value[1] === "1") break;
    if (prometheus.exitCode !== null || Date.now() > deadline) throw new Error(`Prometheus did not scrape gpudesk:\n${prometheusLog}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}, 90_000);

afterAll(async () => {
  if (prometheus && prometheus.exitCode === null) {
    const exited = new Promise((resolve) => prometheus!.once("exit", resolve));
    prometheus.kill("SIGTERM");
    await exited;
  }
  await closeGpudesk?.();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe.runIf(installed)("Prometheus and Grafana on gpudesk's /metrics", () => {
  it("answers every query of the shipped dashboard with series, scraped by a real Prometheus with a token", async () => {
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThan(15);
    const empty: string[] = [];
    for (const { where, expr } of queries) if ((await promQuery(promBase, expr)).length === 0) empty.push(`${where}: ${expr}`);
    expect(empty, "queries of deploy/grafana/gpudesk-dashboard.json that return no series").toEqual([]);
  });

  it("ships a dashboard on the current names only, while the deprecated names still answer for older dashboards", async () => {
    const text = readFileSync(DASHBOARD, "utf8");
    for (const name of DEPRECATED_METRICS) expect(text, `the dashboard queries the deprecated ${name}`).not.toContain(name);
    const current = await promQuery(promBase, "gpudesk_gpu_booking_info");
    const old = await promQuery(promBase, "gpudesk_gpu_holder_info");
    expect(current.map((series) => series.metric.booked_by)).toEqual([bookedBy]);
    expect(old.map((series) => [series.metric.holder, series.metric.reservation_id, series.metric.unit])).toEqual(
      current.map((series) => [series.metric.booked_by, series.metric.reservation_id, series.metric.unit]),
    );
  });

  it("ships alert rules that promtool accepts and that fire as their own rule tests say", () => {
    const check = spawnSync("promtool", ["check", "rules", "gpudesk-alerts.yml"], { cwd: RULES_DIR, encoding: "utf8" });
    expect(check.status, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toContain("4 rules found");
    const test = spawnSync("promtool", ["test", "rules", "gpudesk-alerts.test.yml"], { cwd: RULES_DIR, encoding: "utf8" });
    expect(test.status, test.stdout + test.stderr).toBe(0);
  });
});
