import type { GpuSample } from "@/lib/domain/snapshot";

/**
 * Parsing of `nvidia-smi --query-gpu=…` and `--query-compute-apps=…` output
 * in `--format=csv` (with or without `noheader` and `nounits`).
 *
 * Columns are found by header name, never by position, because nvidia-smi
 * prints the canonical name of a field (`clocks.sm` comes back as
 * `clocks.current.sm [MHz]`) and because the caller's field list differs
 * between drivers (optional fields are dropped on old ones).
 */

/** A cell after clean-up: null for every way nvidia-smi says "no value". */
export type CsvCell = string | null;

export interface CsvTable {
  /** Canonical field names, in output order. */
  columns: string[];
  rows: Record<string, CsvCell>[];
}

/** The two queries have different alias sets: `name` is the GPU's name in one and the process's in the other. */
export type QueryKind = "gpu" | "compute-apps";

// Spelling nvidia-smi accepts → the name this module uses. The canonical side
// is what nvidia-smi prints in a header, so headers need no lookup.
const GPU_ALIASES: Readonly<Record<string, string>> = {
  gpu_name: "name",
  gpu_serial: "serial",
  gpu_uuid: "uuid",
  gpu_bus_id: "pci.bus_id",
  "clocks.gr": "clocks.current.graphics",
  "clocks.sm": "clocks.current.sm",
  "clocks.mem": "clocks.current.memory",
  "clocks.video": "clocks.current.video",
  "gpu.power.requested_limit": "power.limit",
  "gpu.power.current_limit": "enforced.power.limit",
  "gpu.power.draw.average": "power.draw.average",
  "gpu.power.draw.instant": "power.draw.instant",
};

const APP_ALIASES: Readonly<Record<string, string>> = {
  name: "process_name",
  used_memory: "used_gpu_memory",
  uuid: "gpu_uuid",
};

/** The column a row's surplus cells belong to: the only free-text field that may itself contain ", ". */
const FREE_TEXT_COLUMN: Readonly<Record<QueryKind, string>> = {
  gpu: "name",
  "compute-apps": "process_name",
};

/** Canonical name of a requested field or of a header cell (`memory.used [MiB]` → `memory.used`). */
export function canonicalField(kind: QueryKind, field: string): string {
  const bare = field.trim().replace(/\s*\[[^\]]*\]$/, "");
  const aliases = kind === "gpu" ? GPU_ALIASES : APP_ALIASES;
  return aliases[bare] ?? bare;
}

/**
 * `[N/A]`, `N/A`, `[Not Supported]`, `[Unknown Error]`, any other bracketed
 * text and the empty string all mean the GPU did not report a value.
 */
export function parseCsvCell(raw: string): CsvCell {
  const value = raw.trim();
  if (value === "" || value === "N/A" || /^\[.*\]$/.test(value)) return null;
  return value;
}

// Units nvidia-smi appends to values when `nounits` is not given.
const MEASURE = /^([-+]?\d+(?:\.\d+)?)(?:\s*(?:KiB|MiB|GiB|TiB|B|%|W|mW|MHz|GHz|us|ms|ns|s|C|fps|x))?$/;

/** A number from a cell, with any unit suffix removed; null when the cell holds no number. */
export function parseMeasure(cell: CsvCell): number | null {
  if (cell === null) return null;
  const match = MEASURE.exec(cell);
  if (!match) return null;
  const n = Number(match[1]);
  return Number.isFinite(n) ? n : null;
}

// The looping queries parse one line at a time, each with the same field list: its canonical names are worked out once per list.
const columnsOf = { gpu: new WeakMap<readonly string[], string[]>(), "compute-apps": new WeakMap<readonly string[], string[]>() };

function canonicalColumns(kind: QueryKind, fields: readonly string[]): string[] {
  let columns = columnsOf[kind].get(fields);
  if (!columns) {
    columns = fields.map((f) => canonicalField(kind, f));
    columnsOf[kind].set(fields, columns);
  }
  return columns;
}

// A query for processes prints this line (and nothing else) in some driver
// versions when no process holds a context.
const NO_PROCESSES = /^no running processes found/i;

/**
 * Splits CSV output into rows keyed by canonical field name.
 * With `fields` the output is taken as `noheader` and those are its columns;
 * without, the first line is the header. Rows with too few cells (a line cut
 * short by a killed child) are dropped; surplus cells are joined back into the
 * free-text column.
 */
export function parseCsvTable(text: string, kind: QueryKind, fields?: readonly string[]): CsvTable {
  const lines = text
    .split("\n")
    .map((line) => line.replace(/\r$/, ""))
    .filter((line) => line.trim() !== "" && !NO_PROCESSES.test(line.trim()));
  const headerLine = fields ? undefined : lines.shift();
  const columns = fields
    ? canonicalColumns(kind, fields)
    : headerLine === undefined
      ? []
      : headerLine.split(",").map((h) => canonicalField(kind, h));
  if (columns.length === 0) return { columns, rows: [] };

  const joinAt = columns.indexOf(FREE_TEXT_COLUMN[kind]);
  const rows: Record<string, CsvCell>[] = [];
  for (const line of lines) {
    let cells = line.split(", ");
    if (cells.length < columns.length) continue;
    if (cells.length > columns.length) {
      if (joinAt < 0) continue;
      const surplus = cells.length - columns.length;
      cells = [
        ...cells.slice(0, joinAt),
        cells.slice(joinAt, joinAt + surplus + 1).join(", "),
        ...cells.slice(joinAt + surplus + 1),
      ];
    }
    const row: Record<string, CsvCell> = {};
    columns.forEach((column, i) => {
      row[column] = parseCsvCell(cells[i]);
    });
    rows.push(row);
  }
  return { columns, rows };
}

/** Whether a line is the header of a query for `fields` (in any accepted spelling, units or not). */
export function isHeaderLine(line: string, kind: QueryKind, fields: readonly string[]): boolean {
  const cells = line.replace(/\r$/, "").split(",");
  return cells.length === fields.length && cells.every((cell, i) => canonicalField(kind, cell) === canonicalField(kind, fields[i]));
}

export interface QueryGpuRow {
  gpu: GpuSample;
  /** Per row in nvidia-smi's output, though the same for every GPU of a host. */
  driverVersion: string | null;
  timestamp: string | null;
}

/** GPUs from `--query-gpu` output; rows without a UUID cannot be tracked and are dropped. */
export function parseQueryGpuCsv(text: string, fields?: readonly string[]): QueryGpuRow[] {
  const { rows } = parseCsvTable(text, "gpu", fields);
  const result: QueryGpuRow[] = [];
  rows.forEach((row, position) => {
    const uuid = row.uuid ?? null;
    if (uuid === null) return;
    const index = parseMeasure(row.index ?? null);
    result.push({
      driverVersion: row.driver_version ?? null,
      timestamp: row.timestamp ?? null,
      gpu: {
        index: index !== null && Number.isInteger(index) ? index : position,
        uuid,
        name: row.name ?? "",
        pciBusId: row["pci.bus_id"] ?? null,
        memoryTotalMiB: parseMeasure(row["memory.total"] ?? null),
        memoryUsedMiB: parseMeasure(row["memory.used"] ?? null),
        utilizationGpuPct: parseMeasure(row["utilization.gpu"] ?? null),
        utilizationMemoryPct: parseMeasure(row["utilization.memory"] ?? null),
        temperatureC: parseMeasure(row["temperature.gpu"] ?? null),
        powerDrawW: parseMeasure(row["power.draw"] ?? null),
        powerLimitW: parseMeasure(row["power.limit"] ?? null),
        fanSpeedPct: parseMeasure(row["fan.speed"] ?? null),
        smClockMHz: parseMeasure(row["clocks.current.sm"] ?? null),
        pstate: row.pstate ?? null,
        migMode: row["mig.mode.current"] ?? null,
        eccErrorsUncorrected: parseMeasure(row["ecc.errors.uncorrected.volatile.total"] ?? null),
      },
    });
  });
  return result;
}

export interface ComputeAppRow {
  /** Shared by all rows of one query (one `-lms` tick); null when not asked for. */
  timestamp: string | null;
  /** On a MIG GPU this is the parent GPU's UUID. */
  gpuUuid: string;
  pid: number;
  /** Empty when nvidia-smi could not read it (Windows, other namespaces). */
  name: string;
  /** Null on Windows in WDDM mode, where the OS owns the memory. */
  usedMemoryMiB: number | null;
}

/** Processes from `--query-compute-apps` output; header-only output gives an empty list. */
export function parseComputeAppsCsv(text: string, fields?: readonly string[]): ComputeAppRow[] {
  const { rows } = parseCsvTable(text, "compute-apps", fields);
  const result: ComputeAppRow[] = [];
  for (const row of rows) {
    const pid = parseMeasure(row.pid ?? null);
    if (pid === null || !Number.isInteger(pid) || pid < 0) continue;
    result.push({
      timestamp: row.timestamp ?? null,
      gpuUuid: row.gpu_uuid ?? "",
      pid,
      name: row.process_name ?? "",
      usedMemoryMiB: parseMeasure(row.used_gpu_memory ?? null),
    });
  }
  return result;
}
