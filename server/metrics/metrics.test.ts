import { beforeAll, describe, expect, it } from "vitest";
import type { GpuSample } from "@/lib/domain/snapshot";
import { FleetState } from "@/server/fleet/fleet-state";
import { createIngest } from "@/server/fleet/ingest";
import { makeGpu, makeProcess, makeSnapshot, uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Scrapes /metrics through its route handler, in-process, against a live
 * fleet state and a real database, and checks names, labels and values.
 */

const ORIGIN = "http://gpudesk.test";

interface Series {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Just enough of the Prometheus text format for these checks: one sample per line, no escapes in label values. */
function parseExposition(text: string): { series: Series[]; types: Map<string, string> } {
  const series: Series[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (!line || line.startsWith("#")) continue;
    const match = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`unparsable line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/([A-Za-z_][A-Za-z0-9_]*)="([^"]*)"/g)) labels[pair[1]!] = pair[2]!;
    series.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return { series, types };
}

let fleet: FleetState;
let adminToken: string;
let memberToken: string;
let gpus: GpuSample[];
let hostName: string;
let bookedByUsername: string;
let bookingId: string;
const NOW = Date.now();

beforeAll(async () => {
  await useTestDatabase();
  const { setRuntime } = await import("@/server/runtime/runtime");
  const { createUser } = await import("@/server/auth/users");
  const { createPersonalToken } = await import("@/server/auth/tokens");
  const { ensureLocalHost, recordHostInventory } = await import("@/server/hosts/host-registry");
  const { db } = await import("@/server/core/db");

  fleet = new FleetState({ offlineAfterMs: 60_000, simulated: false, now: () => NOW });
  const ingest = createIngest(fleet, () => NOW);
  setRuntime({ fleet, ingest, disconnectAgents: () => {} });

  const admin = await createUser({ username: uniqueName("metricsadmin").replace(/-/g, ""), password: "admin-password", role: "admin" });
  const member = await createUser({ username: uniqueName("metricsmember").replace(/-/g, ""), password: "member-password" });
  adminToken = (await createPersonalToken(admin.id, "prometheus")).token;
  memberToken = (await createPersonalToken(member.id, "curious")).token;
  bookedByUsername = member.username;

  hostName = uniqueName("node");
  const host = await ensureLocalHost(hostName, false);
  gpus = [
    makeGpu({ index: 0, utilizationGpuPct: 87, memoryUsedMiB: 30_000, memoryTotalMiB: 81_559, temperatureC: 61, powerDrawW: 512.5 }),
    // A GPU that does not report its power: the series must be absent, not 0.
    makeGpu({ index: 1, pciBusId: "00000000:18:00.0", utilizationGpuPct: 0, memoryUsedMiB: 4, powerDrawW: null }),
  ];
  const snapshot = makeSnapshot(gpus, NOW - 2000, {
    host: { name: hostName, driverVersion: "580.159.04", cudaVersion: "13.0" },
    processes: [makeProcess(gpus[0]!, { user: "alice" }), makeProcess(gpus[0]!, { pid: 4343, user: "alice" }), makeProcess(gpus[0]!, { pid: 4444, user: "bob" })],
  });
  await recordHostInventory(host.id, snapshot.host, snapshot.gpus, new Date(NOW));
  fleet.connectHost(host.id, host.name, false);
  const reply = await ingest.ingestBatch(host, [snapshot]);
  expect(reply.accepted).toBe(1);

  // The member holds GPU 1 now.
  const gpuRow = await db().gpu.findUniqueOrThrow({ where: { uuid: gpus[1]!.uuid }, select: { id: true } });
  const startsAt = new Date(NOW - 60 * 60_000);
  const endsAt = new Date(NOW + 60 * 60_000);
  const booking = await db().reservation.create({
    data: { userId: member.id, hostId: host.id, startsAt, endsAt, purpose: "metrics test", gpus: { create: [{ gpuId: gpuRow.id, startsAt, endsAt }] } },
    select: { id: true },
  });
  bookingId = booking.id;

  // One open alert and one closed one: only the open one counts.
  await db().alert.create({ data: { kind: "idle_booking", subjectKey: `idle_booking:${gpus[1]!.uuid}`, message: "idle", gpuUuid: gpus[1]!.uuid } });
  await db().alert.create({ data: { kind: "conflict", subjectKey: `conflict:${gpus[0]!.uuid}`, message: "over", closedAt: new Date(NOW) } });
}, 60_000);

async function scrape(headers: Record<string, string> = {}): Promise<Response> {
  const { GET } = await import("@/app/metrics/route");
  return GET(new Request(`${ORIGIN}/metrics`, { headers: { host: "gpudesk.test", ...headers } }), { params: Promise.resolve({}) } as never);
}

describe("/metrics", () => {
  it("answers admins with dcgm-exporter's names, labels and values from the live state", async () => {
    const response = await scrape({ authorization: `Bearer ${adminToken}` });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const { series, types } = parseExposition(await response.text());
    const find = (name: string, gpu: GpuSample) => series.filter((s) => s.name === name && s.labels.UUID === gpu.uuid);

    const [util] = find("DCGM_FI_DEV_GPU_UTIL", gpus[0]!);
    expect(util?.labels).toEqual({
      gpu: "0",
      UUID: gpus[0]!.uuid,
      pci_bus_id: "00000000:17:00.0",
      device: "nvidia0",
      modelName: "NVIDIA H100 80GB HBM3",
      Hostname: hostName,
      DCGM_FI_DRIVER_VERSION: "580.159.04",
    });
    expect(util?.value).toBe(87);
    expect(types.get("DCGM_FI_DEV_GPU_UTIL")).toBe("gauge");
    expect(find("DCGM_FI_DEV_FB_USED", gpus[0]!)[0]?.value).toBe(30_000);
    expect(find("DCGM_FI_DEV_FB_FREE", gpus[0]!)[0]?.value).toBe(81_559 - 30_000);
    expect(find("DCGM_FI_DEV_GPU_TEMP", gpus[0]!)[0]?.value).toBe(61);
    expect(find("DCGM_FI_DEV_POWER_USAGE", gpus[0]!)[0]?.value).toBe(512.5);
    expect(find("DCGM_FI_DEV_GPU_UTIL", gpus[1]!)[0]?.value).toBe(0);
    expect(find("DCGM_FI_DEV_GPU_UTIL", gpus[1]!)[0]?.labels.device).toBe("nvidia1");
    expect(find("DCGM_FI_DEV_POWER_USAGE", gpus[1]!)).toHaveLength(0);

    const own = (name: string, gpu: GpuSample) => series.filter((s) => s.name === name && s.labels.UUID === gpu.uuid);
    expect(own("gpudesk_gpu_processes", gpus[0]!)[0]?.value).toBe(3);
    expect(own("gpudesk_gpu_process_user_info", gpus[0]!).map((s) => [s.labels.user, s.value]).sort()).toEqual([
      ["alice", 2],
      ["bob", 1],
    ]);
    expect(own("gpudesk_gpu_booked", gpus[0]!)[0]?.value).toBe(0);
    expect(own("gpudesk_gpu_booked", gpus[1]!)[0]?.value).toBe(1);
    expect(own("gpudesk_gpu_booking_info", gpus[1]!)[0]?.labels).toMatchObject({ booked_by: bookedByUsername, reservation_id: bookingId, Hostname: hostName, gpu: "1" });
    expect(own("gpudesk_gpu_booking_info", gpus[0]!)).toHaveLength(0);
    expect(series.find((s) => s.name === "gpudesk_reservations_active")?.value).toBe(1);
    const alerts = Object.fromEntries(series.filter((s) => s.name === "gpudesk_alerts_open").map((s) => [s.labels.kind, s.value]));
    expect(alerts).toMatchObject({ idle_booking: 1, conflict: 0, host_offline: 0 });

    const host = (name: string) => series.find((s) => s.name === name && s.labels.Hostname === hostName)?.value;
    expect(host("gpudesk_host_online")).toBe(1);
    expect(host("gpudesk_host_gpus")).toBe(2);
    // Seconds since the reading (taken 2 s before NOW), measured by the scrape's own clock.
    expect(host("gpudesk_agent_last_seen_age_seconds")).toBeGreaterThanOrEqual(2);
    expect(host("gpudesk_agent_last_seen_age_seconds")).toBeLessThanOrEqual((Date.now() - NOW) / 1000 + 2);
    expect(series.find((s) => s.name === "gpudesk_ingest_snapshots_accepted_total")?.value).toBe(1);
    expect(types.get("gpudesk_ingest_snapshots_accepted_total")).toBe("counter");
  });

  it("leaves out the readings of a host that went offline, and says it is offline", async () => {
    const { ensureLocalHost } = await import("@/server/hosts/host-registry");
    const quiet = await ensureLocalHost(uniqueName("quiet"), false);
    const gpu = makeGpu();
    fleet.connectHost(quiet.id, quiet.name, false);
    fleet.ingest(quiet.id, makeSnapshot([gpu], NOW - 5000, { host: { name: quiet.name, driverVersion: null, cudaVersion: null } }));
    fleet.disconnectHost(quiet.id);
    const { series } = parseExposition(await (await scrape({ authorization: `Bearer ${adminToken}` })).text());
    expect(series.filter((s) => s.labels.UUID === gpu.uuid && s.name.startsWith("DCGM_"))).toHaveLength(0);
    expect(series.find((s) => s.name === "gpudesk_host_online" && s.labels.Hostname === quiet.name)?.value).toBe(0);
    expect(series.find((s) => s.name === "gpudesk_agent_last_seen_age_seconds" && s.labels.Hostname === quiet.name)?.value).toBeGreaterThanOrEqual(5);
  });

  it("refuses anyone but an admin unless opened with GPUDESK_METRICS_PUBLIC", async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape({ authorization: `Bearer ${memberToken}` })).status).toBe(403);
    const { authorizeMetrics } = await import("@/server/metrics/collect-metrics");
    await expect(authorizeMetrics(new Request(`${ORIGIN}/metrics`), true)).resolves.toBeUndefined();
    await expect(authorizeMetrics(new Request(`${ORIGIN}/metrics`), false)).rejects.toMatchObject({ code: "unauthorized" });
  });
});
