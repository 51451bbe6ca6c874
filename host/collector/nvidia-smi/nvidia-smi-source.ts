import { accessSync, constants, statSync } from "node:fs";
import type { Snapshot } from "@/lib/domain/snapshot";
import type { GpuSource } from "@/host/collector/source";
import { buildSnapshot, processesFromXml, type SnapshotParts } from "@/host/collector/nvidia-smi/build-snapshot";
import { startLoopingQuery, type LoopingQuery } from "@/host/collector/nvidia-smi/looping-query";
import { indexAmongLost, type LostGpu, normalizeBusId, parseLostGpuLine } from "@/host/collector/nvidia-smi/lost-gpus";
import {
  isHeaderLine,
  parseComputeAppsCsv,
  parseQueryGpuCsv,
  type ComputeAppRow,
  type QueryGpuRow,
} from "@/host/collector/nvidia-smi/parse-csv";
import { parseNvidiaSmiXml } from "@/host/collector/nvidia-smi/parse-xml";
import { createMigReader } from "@/host/collector/nvidia-smi/mig-reader";
import { placeProcesses, withSlices } from "@/host/collector/nvidia-smi/mig-slices";
import {
  APP_QUERY_FIELDS,
  appsQueryArgs,
  GPU_QUERY_FIELDS,
  gpuQueryArgs,
  OPTIONAL_GPU_FIELDS,
} from "@/host/collector/nvidia-smi/query-fields";
import { NvidiaSmiError, runNvidiaSmi } from "@/host/collector/nvidia-smi/run-nvidia-smi";

export { findNvidiaSmi } from "@/host/collector/nvidia-smi/find-nvidia-smi";
export { NvidiaSmiError } from "@/host/collector/nvidia-smi/run-nvidia-smi";

export type NvidiaSmiMode = "long-lived" | "spawn";

/**
 * How long after the first line of a tick the source says "new reading"
 * at the latest: nvidia-smi prints a tick's GPU lines together, within a
 * few milliseconds. Once as many lines as the last tick had have come it
 * says so at once; the wait is for the first tick and a host whose GPU
 * count just changed.
 */
export const TICK_SETTLE_MS = 15;

export interface NvidiaSmiSourceOptions {
  /** The nvidia-smi binary (see findNvidiaSmi). */
  path: string;
  hostName: string;
  /** How often the agent reads; long-lived children print at this period. */
  intervalMs: number;
  /**
   * `long-lived` (default): two `-lms` children print continuously and read()
   * returns their latest lines. `spawn`: each read() runs both queries once.
   */
  mode?: NvidiaSmiMode;
  /** One line per event worth an operator's attention; default console.warn. */
  log?: (line: string) => void;
  /** Limit for each one-shot call; default the larger of 10 s and two intervals. */
  timeoutMs?: number;
  /** How often the MIG layout (`-L`, `-q`) is read on a host with a GPU in MIG mode; default 5 s. */
  migRefreshMs?: number;
}

function assertExecutable(path: string): void {
  try {
    if (!statSync(path).isFile()) throw new Error("not a file");
    accessSync(path, constants.X_OK);
  } catch {
    throw new NvidiaSmiError("not-found", `nvidia-smi not found or not executable at ${path}`);
  }
}

/**
 * A GpuSource reading nvidia-smi. Resolves once the binary is known to exist
 * and `nvidia-smi -q -x` has been asked for the CUDA version (null when that
 * fails); rejects with an NvidiaSmiError when the binary is missing. Reads
 * that fail reject with an NvidiaSmiError; nothing here throws asynchronously
 * outside a returned promise.
 */
export async function createNvidiaSmiSource(options: NvidiaSmiSourceOptions): Promise<GpuSource> {
  const { path, hostName, intervalMs } = options;
  const mode = options.mode ?? "long-lived";
  const log = options.log ?? ((line: string) => console.warn(`[nvidia-smi] ${line}`));
  const timeoutMs = options.timeoutMs ?? Math.max(10_000, 2 * intervalMs);
  if (!Number.isInteger(intervalMs) || intervalMs < 10) {
    throw new RangeError(`intervalMs must be an integer of at least 10, got ${intervalMs}`);
  }
  assertExecutable(path);

  let gpuFields: string[] = [...GPU_QUERY_FIELDS];
  const appFields: string[] = [...APP_QUERY_FIELDS];
  let xmlDriverVersion: string | null = null;
  let cudaVersion: string | null = null;
  let onXmlFallback = false;
  let closed = false;

  // GPUs that fell off the bus, by bus id: one log line when one goes, one when it answers again.
  const lostGpus = new Set<string>();
  const noteLost = (lost: LostGpu[]) => {
    for (const gpu of lost) {
      const key = normalizeBusId(gpu.pciBusId);
      if (lostGpus.has(key)) continue;
      lostGpus.add(key);
      log(`GPU ${gpu.pciBusId} does not answer (${gpu.reason}); the host's other GPUs keep reporting`);
    }
  };
  const noteAnswering = (busIds: (string | null)[]) => {
    for (const busId of busIds) {
      if (busId === null || !lostGpus.delete(normalizeBusId(busId))) continue;
      log(`GPU ${busId} answers again`);
    }
  };

  try {
    const probe = parseNvidiaSmiXml(await runNvidiaSmi(path, ["-q", "-x"], timeoutMs, noteLost));
    cudaVersion = probe.cudaVersion;
    xmlDriverVersion = probe.driverVersion;
  } catch (error) {
    if (error instanceof NvidiaSmiError && error.code === "not-found") throw error;
    log(`no CUDA version: ${(error as Error).message}`);
  }

  /** Drops the optional fields after a refusal; false when there is nothing left to drop. */
  const dropOptionalFields = (error: NvidiaSmiError): boolean => {
    const optional = gpuFields.filter((f) => OPTIONAL_GPU_FIELDS.includes(f));
    if (optional.length === 0) return false;
    if (error.field !== null && !OPTIONAL_GPU_FIELDS.includes(error.field)) return false;
    gpuFields = gpuFields.filter((f) => !OPTIONAL_GPU_FIELDS.includes(f));
    log(`this driver refuses field "${error.field ?? "?"}"; querying without ${optional.join(", ")}`);
    return true;
  };

  const queryGpusOnce = async (): Promise<QueryGpuRow[]> => {
    const fields = gpuFields;
    try {
      const rows = parseQueryGpuCsv(await runNvidiaSmi(path, gpuQueryArgs(fields), timeoutMs, noteLost), fields);
      if (rows.length === 0) throw new NvidiaSmiError("no-data", "nvidia-smi --query-gpu printed no GPU rows");
      noteAnswering(rows.map((row) => row.gpu.pciBusId));
      return rows;
    } catch (error) {
      if (error instanceof NvidiaSmiError && error.code === "invalid-field" && dropOptionalFields(error)) {
        return queryGpusOnce();
      }
      throw error;
    }
  };

  /** `topo -m` once; a driver or board without it (or a failure) means "topology unknown", not a broken source. */
  const readTopology = async (): Promise<string | null> => {
    try {
      return await runNvidiaSmi(path, ["topo", "-m"], timeoutMs);
    } catch (error) {
      log(`no GPU topology: ${(error as Error).message}`);
      return null;
    }
  };

  const migReader = createMigReader({
    run: (args) => runNvidiaSmi(path, args, timeoutMs, () => undefined),
    refreshMs: options.migRefreshMs,
    log,
  });

  /** The parts with each MIG GPU's slices as units and its processes on their slice. */
  const withMig = async (parts: SnapshotParts): Promise<SnapshotParts> => {
    const layout = await migReader.layout(parts.gpus, parts.processes);
    if (!layout) return parts;
    const gpus = withSlices(parts.gpus, layout);
    return { ...parts, gpus, processes: placeProcesses(parts.processes, gpus, layout) };
  };

  const queryAppsOnce = async (): Promise<ComputeAppRow[]> =>
    // A lost GPU has no processes to list; the GPU query reports it.
    parseComputeAppsCsv(await runNvidiaSmi(path, appsQueryArgs(appFields), timeoutMs, () => undefined), appFields);

  const partsFrom = (rows: QueryGpuRow[], apps: ComputeAppRow[], sampledAt: Date): SnapshotParts => ({
    hostName,
    driverVersion: rows.find((r) => r.driverVersion !== null)?.driverVersion ?? xmlDriverVersion,
    cudaVersion,
    gpus: rows.map((r) => r.gpu),
    processes: apps,
    sampledAt,
  });

  const readFromXml = async (): Promise<Snapshot> => {
    let lost: LostGpu[] = [];
    const output = await runNvidiaSmi(path, ["-q", "-x"], timeoutMs, (found) => {
      lost = found;
      noteLost(found);
    });
    const xml = parseNvidiaSmiXml(output);
    if (xml.gpus.length === 0) throw new NvidiaSmiError("no-data", "nvidia-smi -q -x listed no GPUs");
    const gpus = indexAmongLost(
      xml.gpus.map((g) => g.gpu),
      lost,
    );
    noteAnswering(gpus.map((gpu) => gpu.pciBusId));
    return buildSnapshot(
      await withMig({
        hostName,
        driverVersion: xml.driverVersion,
        cudaVersion: xml.cudaVersion ?? cudaVersion,
        gpus,
        processes: processesFromXml(xml),
        sampledAt: new Date(),
      }),
    );
  };

  /** Both CSV queries once; if they fail, `-q -x`; if that fails too, the CSV error. */
  const readBySpawn = async (): Promise<Snapshot> => {
    try {
      const [rows, apps] = await Promise.all([queryGpusOnce(), queryAppsOnce()]);
      if (onXmlFallback) log("the CSV queries work again");
      onXmlFallback = false;
      return buildSnapshot(await withMig(partsFrom(rows, apps, new Date())));
    } catch (error) {
      if (error instanceof NvidiaSmiError && error.code === "not-found") throw error;
      try {
        const snapshot = await readFromXml();
        if (!onXmlFallback) log(`${(error as Error).message}; reading nvidia-smi -q -x instead`);
        onXmlFallback = true;
        return snapshot;
      } catch {
        throw error;
      }
    }
  };

  if (mode === "spawn") {
    return {
      kind: "nvidia-smi",
      read: () => (closed ? Promise.reject(closedError()) : readBySpawn()),
      readTopology,
      close: async () => {
        closed = true;
      },
    };
  }

  // Long-lived mode: the latest line per GPU, and the newest group of process rows.
  const latestGpu = new Map<string, { row: QueryGpuRow; at: number }>();
  // Each tick of the GPU child: the agent reads right after it (onTick), not on a clock of its own.
  const tickListeners = new Set<() => void>();
  let tickAt = 0;
  let tickSettle: ReturnType<typeof setTimeout> | null = null;
  // GPU lines of the tick under way, and of the one before: when as many have come, the tick is whole.
  let tickLines = 0;
  let lastTickLines = 0;
  const tellTick = () => {
    if (tickSettle) clearTimeout(tickSettle);
    tickSettle = null;
    for (const listener of tickListeners) listener();
  };
  const noteTick = (at: number, lines: number) => {
    // The lines of one tick (one per GPU) come together; a new tick starts after half an interval of quiet.
    if (at - tickAt >= intervalMs / 2) {
      tickAt = at;
      lastTickLines = tickLines;
      tickLines = 0;
      tickSettle ??= setTimeout(tellTick, TICK_SETTLE_MS);
    }
    tickLines += lines;
    // Every GPU of the last tick has printed: the reading is whole now, and waiting out the settle time would only delay it.
    if (tickSettle && lastTickLines > 0 && tickLines >= lastTickLines) tellTick();
  };
  let appsGroup: { timestamp: string | null; rows: ComputeAppRow[]; at: number } | null = null;
  let gpuChildFields = gpuFields;
  const staleMs = Math.max(3 * intervalMs, 3000);
  const processWindowMs = 1.5 * intervalMs;

  const gpuLoop: LoopingQuery = startLoopingQuery({
    path,
    log,
    args: () => {
      gpuChildFields = gpuFields;
      return gpuQueryArgs(gpuChildFields, intervalMs);
    },
    onLine: (line, at) => {
      const lost = parseLostGpuLine(line);
      if (lost) {
        // Gone now, not once its last line turns stale: the host's reading goes on without it.
        for (const [uuid, entry] of latestGpu) {
          if (entry.row.gpu.pciBusId !== null && normalizeBusId(entry.row.gpu.pciBusId) === normalizeBusId(lost.pciBusId)) latestGpu.delete(uuid);
        }
        noteLost([lost]);
        return true;
      }
      const rows = parseQueryGpuCsv(line, gpuChildFields);
      for (const row of rows) latestGpu.set(row.gpu.uuid, { row, at });
      noteAnswering(rows.map((row) => row.gpu.pciBusId));
      if (rows.length > 0) noteTick(at, rows.length);
      return rows.length > 0;
    },
    onInvalidField: dropOptionalFields,
    // A hung driver call shows as silence; the first tick can take seconds on a cold driver.
    stallAfterMs: Math.max(10 * intervalMs, 30_000),
  });

  const appsLoop: LoopingQuery = startLoopingQuery({
    path,
    log,
    args: () => appsQueryArgs(appFields, intervalMs),
    onLine: (line, at) => {
      // The header comes with the first tick: from then on, silence means "no processes".
      if (isHeaderLine(line, "compute-apps", appFields)) return true;
      if (parseLostGpuLine(line)) return true;
      const rows = parseComputeAppsCsv(line, appFields);
      for (const row of rows) {
        // Rows of one tick share a timestamp and arrive together; either a new
        // timestamp or a pause of half an interval starts a new group.
        const same =
          appsGroup !== null &&
          at - appsGroup.at < intervalMs / 2 &&
          (row.timestamp === null || row.timestamp === appsGroup.timestamp);
        if (same && appsGroup) {
          appsGroup.rows.push(row);
          appsGroup.at = at;
        } else {
          appsGroup = { timestamp: row.timestamp, rows: [row], at };
        }
      }
      return rows.length > 0;
    },
    onInvalidField: () => false,
    // Backstop for a build that would print no header: until then, reads ask once per read.
    healthyAfterMs: Math.max(5 * intervalMs, 10_000),
  });

  const readLongLived = async (): Promise<Snapshot> => {
    // The first tick of a loop is as slow as a one-shot call, so it gets the same limit.
    await gpuLoop.settled(timeoutMs);
    if (gpuLoop.state() !== "running") return readBySpawn();
    // Right after a (re)start the process child has not shown its first tick yet: wait
    // a little for it, then ask once, rather than report "no processes" without knowing.
    await appsLoop.settled(processWindowMs);
    let apps: ComputeAppRow[];
    if (appsLoop.state() === "running") {
      const group = appsGroup;
      apps = group && Date.now() - group.at <= processWindowMs ? group.rows : [];
    } else {
      try {
        apps = await queryAppsOnce();
      } catch {
        return readBySpawn();
      }
    }
    // Taken after the waits above, so that the GPU lines are the newest ones.
    const now = Date.now();
    const fresh = [...latestGpu.values()].filter((entry) => now - entry.at <= staleMs);
    if (fresh.length === 0) return readBySpawn();
    const sampledAt = new Date(Math.max(...fresh.map((entry) => entry.at)));
    return buildSnapshot(await withMig(partsFrom(fresh.map((entry) => entry.row), apps, sampledAt)));
  };

  return {
    kind: "nvidia-smi",
    read: () => (closed ? Promise.reject(closedError()) : readLongLived()),
    readTopology,
    close: async () => {
      closed = true;
      tickListeners.clear();
      if (tickSettle) clearTimeout(tickSettle);
      await Promise.all([gpuLoop.stop(), appsLoop.stop()]);
    },
    onTick: (listener) => {
      tickListeners.add(listener);
      return () => void tickListeners.delete(listener);
    },
  };
}

function closedError(): NvidiaSmiError {
  return new NvidiaSmiError("failed", "the nvidia-smi source is closed");
}
