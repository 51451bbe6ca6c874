import { Counter, Gauge, Registry } from "prom-client";
import { ALERT_KINDS } from "@/lib/domain/alerts";
import { unitName } from "@/lib/domain/gpu-availability";
import type { FleetSnapshot, LiveGpu, LiveHost } from "@/lib/live/live";
import type { IngestCounters } from "@/server/fleet/ingest";
import type { HistoryStats } from "@/server/history/history-service";
import type { ActiveBooking } from "@/server/bookings/store/active-bookings";


export interface MetricsInput {
  /** Hosts and GPUs as they are now (FleetState.current()); history is not exported. */
  fleet: Pick<FleetSnapshot, "hosts" | "gpus">;
  /** The booking of each GPU now, by GPU UUID (its person is the `booked_by` label). */
  bookings: Map<string, ActiveBooking>;
  activeBookings: number;
  /** Open alerts by kind; every known kind is exported, 0 when none is open. */
  openAlerts: Partial<Record<string, number>>;
  ingest: IngestCounters;
  history?: HistoryStats;
  nowMs: number;
}

/**
 * The label set dcgm-exporter puts on every GPU series (release tags:
 * `Hostname` with a capital H), so that dashboards written for it work
 * unchanged. Label order follows its template.
 */
// GPU_I_PROFILE and GPU_I_ID only on a MIG slice's series, as dcgm-exporter labels a MIG device (whose UUID label is its GPU's).
const GPU_LABELS = ["gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname", "DCGM_FI_DRIVER_VERSION", "GPU_I_PROFILE", "GPU_I_ID"] as const;
type GpuLabel = (typeof GPU_LABELS)[number];

/** dcgm-exporter's fields that nvidia-smi readings can fill, with its help texts and units. */
const DCGM_GAUGES: { name: string; help: string; value: (gpu: LiveGpu) => number | null }[] = [
  { name: "DCGM_FI_DEV_GPU_UTIL", help: "GPU utilization (in %).", value: (gpu) => gpu.utilizationGpuPct },
  { name: "DCGM_FI_DEV_MEM_COPY_UTIL", help: "Memory utilization (in %).", value: (gpu) => gpu.utilizationMemoryPct },
  { name: "DCGM_FI_DEV_FB_USED", help: "Framebuffer memory used (in MiB).", value: (gpu) => gpu.memoryUsedMiB },
  {
    name: "DCGM_FI_DEV_FB_FREE",
    help: "Framebuffer memory free (in MiB).",
    value: (gpu) => (gpu.memoryTotalMiB === null || gpu.memoryUsedMiB === null ? null : Math.max(0, gpu.memoryTotalMiB - gpu.memoryUsedMiB)),
  },
  { name: "DCGM_FI_DEV_GPU_TEMP", help: "GPU temperature (in C).", value: (gpu) => gpu.temperatureC },
  { name: "DCGM_FI_DEV_POWER_USAGE", help: "Power draw (in W).", value: (gpu) => gpu.powerDrawW },
  { name: "DCGM_FI_DEV_SM_CLOCK", help: "SM clock frequency (in MHz).", value: (gpu) => gpu.smClockMHz },
];

function gpuLabels(gpu: LiveGpu, host: LiveHost | undefined): Partial<Record<GpuLabel, string>> {
  return {
    ...(gpu.mig ? { GPU_I_PROFILE: gpu.mig.profile, GPU_I_ID: String(gpu.mig.gpuInstanceId) } : {}),
    gpu: String(gpu.index),
    UUID: gpu.mig?.parentUuid ?? gpu.uuid,
    pci_bus_id: gpu.pciBusId ?? "",
    device: `nvidia${gpu.index}`,
    modelName: gpu.name,
    Hostname: gpu.hostName,
    DCGM_FI_DRIVER_VERSION: host?.driverVersion ?? "",
  };
}

/**
 * The Prometheus exposition of the live fleet and of gpudesk itself, built
 * in a fresh registry per scrape from the state passed in (no module-level
 * metrics: the custom server and Next's route bundles load separate copies
 * of modules, and a fresh registry cannot report stale series).
 */
export async function renderMetrics(input: MetricsInput): Promise<{ contentType: string; body: string }> {
  const registry = new Registry();
  const hosts = new Map(input.fleet.hosts.map((host) => [host.id, host]));
  const gpus = [...input.fleet.gpus].sort((a, b) => a.hostName.localeCompare(b.hostName) || a.index - b.index);

  for (const spec of DCGM_GAUGES) {
    const gauge = new Gauge({ name: spec.name, help: spec.help, labelNames: GPU_LABELS, registers: [registry] });
    for (const gpu of gpus) {
      const host = hosts.get(gpu.hostId);
      // As dcgm-exporter: a value the GPU does not report is left out, and so is
      // every reading of a host that stopped reporting (it would be stale).
      if (!host?.online) continue;
      if (spec.name === "DCGM_FI_DEV_GPU_UTIL" && gpu.migMode === "Enabled") continue;
      const value = spec.value(gpu);
      if (value !== null && Number.isFinite(value)) gauge.set(gpuLabels(gpu, host), value);
    }
  }

  // `unit` tells a GPU's MIG slices apart by the name every surface gives them ("GPU 0:2 (1g.10gb)"); `gpu` stays the index.
  const identity = ["gpu", "unit", "UUID", "modelName", "Hostname"] as const;
  const short = (gpu: LiveGpu) => ({ gpu: String(gpu.index), unit: unitName(gpu), UUID: gpu.uuid, modelName: gpu.name, Hostname: gpu.hostName });
  const processes = new Gauge({
    name: "gpudesk_gpu_processes",
    help: "Compute processes running on the GPU.",
    labelNames: identity,
    registers: [registry],
  });
  const booked = new Gauge({
    name: "gpudesk_gpu_booked",
    help: "1 when a reservation holds the GPU now, else 0.",
    labelNames: identity,
    registers: [registry],
  });
  const bookedBy = new Gauge({
    name: "gpudesk_gpu_booking_info",
    help: "The person whose reservation holds the GPU now (value always 1).",
    labelNames: [...identity, "booked_by", "reservation_id"],
    registers: [registry],
  });
  // The name before 0.4, answered beside the new one for a deprecation period (docs/operations.md: deprecated metric names).
  const holderInfo = new Gauge({
    name: "gpudesk_gpu_holder_info",
    help: "Deprecated name of gpudesk_gpu_booking_info (label holder for booked_by), answered for one more version.",
    labelNames: [...identity, "holder", "reservation_id"],
    registers: [registry],
  });
  const processUser = new Gauge({
    name: "gpudesk_gpu_process_user_info",
    help: "A Unix user with a process on the GPU now (value: that user's processes).",
    labelNames: [...identity, "user"],
    registers: [registry],
  });
  for (const gpu of gpus) {
    const labels = short(gpu);
    processes.set(labels, gpu.processes.length);
    const booking = input.bookings.get(gpu.uuid);
    booked.set(labels, booking ? 1 : 0);
    if (booking) {
      bookedBy.set({ ...labels, booked_by: booking.bookedByUsername, reservation_id: booking.reservationId }, 1);
      holderInfo.set({ ...labels, holder: booking.bookedByUsername, reservation_id: booking.reservationId }, 1);
    }
    const users = new Map<string, number>();
    for (const process of gpu.processes) {
      const user = process.user ?? "unknown";
      users.set(user, (users.get(user) ?? 0) + 1);
    }
    for (const [user, count] of users) processUser.set({ ...labels, user }, count);
  }

  new Gauge({ name: "gpudesk_reservations_active", help: "Reservations holding GPUs now.", registers: [registry] }).set(
    input.activeBookings,
  );
  const alerts = new Gauge({ name: "gpudesk_alerts_open", help: "Open alerts, by kind.", labelNames: ["kind"], registers: [registry] });
  for (const kind of new Set([...ALERT_KINDS, ...Object.keys(input.openAlerts)])) alerts.set({ kind }, input.openAlerts[kind] ?? 0);

  const online = new Gauge({ name: "gpudesk_host_online", help: "1 while the host's agent reports, else 0.", labelNames: ["Hostname"], registers: [registry] });
  const lastSeen = new Gauge({
    name: "gpudesk_agent_last_seen_age_seconds",
    help: "Seconds since the host's newest reading (absent for a host never seen).",
    labelNames: ["Hostname"],
    registers: [registry],
  });
  const hostGpus = new Gauge({ name: "gpudesk_host_gpus", help: "GPUs the host reports.", labelNames: ["Hostname"], registers: [registry] });
  for (const host of input.fleet.hosts) {
    online.set({ Hostname: host.name }, host.online ? 1 : 0);
    hostGpus.set({ Hostname: host.name }, host.gpuUuids.length);
    if (host.lastSeenAt) lastSeen.set({ Hostname: host.name }, Math.max(0, (input.nowMs - Date.parse(host.lastSeenAt)) / 1000));
  }

  const counter = (name: string, help: string, value: number) => new Counter({ name, help, registers: [registry] }).inc(value);
  counter("gpudesk_ingest_snapshots_accepted_total", "Agent snapshots accepted since the server started.", input.ingest.acceptedSnapshots);
  counter("gpudesk_ingest_snapshots_rejected_total", "Agent snapshots refused (invalid, clock, another host's GPU).", input.ingest.rejectedSnapshots);
  counter("gpudesk_ingest_messages_rejected_total", "Agent messages refused as a whole.", input.ingest.rejectedMessages);
  counter("gpudesk_ingest_agent_dropped_samples_total", "Samples agents dropped while the server was unreachable.", input.ingest.droppedByAgents);

  if (input.history) {
    const history = input.history;
    new Gauge({ name: "gpudesk_rollup_pending_minutes", help: "GPU-minutes accumulated and not yet written.", registers: [registry] }).set(history.pending);
    counter("gpudesk_rollup_flushes_total", "Batches of minute rollups written.", history.flushes);
    counter("gpudesk_rollup_flush_failures_total", "Batches that failed (kept and retried).", history.failedFlushes);
    counter("gpudesk_rollup_dropped_minutes_total", "GPU-minutes dropped while the database refused writes.", history.droppedMinutes);
    if (history.lastFlushAt !== null) {
      new Gauge({ name: "gpudesk_rollup_last_flush_timestamp_seconds", help: "When minute rollups were last written.", registers: [registry] }).set(
        history.lastFlushAt / 1000,
      );
    }
  }

  return { contentType: registry.contentType, body: await registry.metrics() };
}
