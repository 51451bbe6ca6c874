#!/usr/bin/env node
// A stand-in for nvidia-smi that replays recorded output, so the collector,
// its tests and the polling benchmark run on machines without a GPU.
//
// It reads these files from $FAKE_NVIDIA_SMI_DIR (default:
// host/collector/fixtures/h200-driver-580 in this repository):
//
//   query-gpu__load.csv           `--query-gpu=… --format=csv` output, header included
//   query-compute-apps__load.csv  `--query-compute-apps=… --format=csv` output, header
//                                 included; header-only means "no processes"
//   query-xml.xml                 `nvidia-smi -q -x` output
//   query.txt                     `nvidia-smi -q` output (optional; MIG hosts)
//   list-L.txt                    `nvidia-smi -L` output
//   version.txt                   `nvidia-smi --version` output (optional)
//
// Lines starting with "# " (the capture script's `# $ command` and
// `# exit=N` annotations) are dropped; a one-shot answer then exits with the
// recorded N (a loop keeps going). A line "Unable to determine the device
// handle for GPU …" (a GPU that fell off the bus) is printed as it is, in its
// place among the rows. The files are read again on every tick, so a test
// can change the process list while the fake loops.
//
// What it answers:
//   --query-gpu=FIELDS / --query-compute-apps=FIELDS with exactly the
//     requested fields in order, looked up by header name (aliases such as
//     clocks.sm → clocks.current.sm and used_memory → used_gpu_memory
//     included); a field missing from the recording prints [N/A], and
//     `timestamp` is always the time of the tick;
//   --format=csv[,noheader][,nounits];
//   -lms N / --loop-ms=N and -l N / --loop=N: repeat until killed;
//   -q, -q -x, -L, --version.
//
// Environment:
//   FAKE_NVIDIA_SMI_DIR   the directory above
//   FAKE_NVIDIA_SMI_VARY  "1": utilization.gpu, utilization.memory and
//                         memory.used follow slow waves of the clock
//                         (deterministic from the time), so a live view moves;
//                         a GPU recorded idle (memory.used 0 MiB) stays idle,
//                         as memory held with no process is someone's job
//   FAKE_NVIDIA_SMI_SET   a file of FIELD=VALUE lines (e.g. `utilization.gpu=57 %`),
//                         read on every tick of --query-gpu: each value replaces
//                         the recorded (and varied) one on every GPU's row, so a
//                         benchmark changes a value at a moment of its choosing
//                         (write it elsewhere and rename it over, so that a tick
//                         never reads half a file); absent: nothing replaced
//   FAKE_NVIDIA_SMI_TICK_LOG  a file to which each --query-gpu tick appends
//                         "<epoch ms> <the replaced values as JSON>" just before
//                         it prints: when a changed value first left the fake
//
// Plain JavaScript without dependencies: it must start fast and run anywhere
// node does.
import { appendFileSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const dir = process.env.FAKE_NVIDIA_SMI_DIR
  ? resolve(process.env.FAKE_NVIDIA_SMI_DIR)
  : join(here, "..", "host", "collector", "fixtures", "h200-driver-580");
const vary = process.env.FAKE_NVIDIA_SMI_VARY === "1";
const setFile = process.env.FAKE_NVIDIA_SMI_SET;
const tickLog = process.env.FAKE_NVIDIA_SMI_TICK_LOG;

/** The values FAKE_NVIDIA_SMI_SET replaces now, by canonical field name. */
function replacedValues() {
  const values = new Map();
  if (!setFile) return values;
  let text = "";
  try {
    text = readFileSync(setFile, "utf8");
  } catch {
    return values;
  }
  for (const line of text.split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) values.set(canonical(GPU_ALIASES, line.slice(0, at)), line.slice(at + 1).trim());
  }
  return values;
}

const GPU_ALIASES = {
  gpu_name: "name",
  gpu_serial: "serial",
  gpu_uuid: "uuid",
  gpu_bus_id: "pci.bus_id",
  "clocks.gr": "clocks.current.graphics",
  "clocks.sm": "clocks.current.sm",
  "clocks.mem": "clocks.current.memory",
  "clocks.video": "clocks.current.video",
};
const APP_ALIASES = { name: "process_name", used_memory: "used_gpu_memory", uuid: "gpu_uuid" };
const UNIT_VALUE = /^([-+]?\d+(?:\.\d+)?) (?:KiB|MiB|GiB|%|W|MHz|us|ms)$/;

function fail(message, code = 2) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

// Line ending of the recordings, kept on output: Windows captures use CRLF.
let eol = "\n";
// The `# exit=N` of the last file read: the exit code of a one-shot answer.
let recordedExit = 0;
const LOST_GPU = /^Unable to determine the device handle for GPU /;

function readRecorded(name) {
  let text;
  try {
    text = readFileSync(join(dir, name), "utf8");
  } catch {
    fail(`fake-nvidia-smi: cannot read ${join(dir, name)}`, 9);
  }
  eol = text.includes("\r\n") ? "\r\n" : "\n";
  recordedExit = Number(/^# exit=(\d+)/m.exec(text)?.[1] ?? 0);
  return text
    .split("\n")
    .map((line) => line.replace(/\r$/, ""))
    .filter((line) => !line.startsWith("# "));
}

function canonical(aliases, field) {
  const bare = field.trim().replace(/\s*\[[^\]]*\]$/, "");
  return aliases[bare] ?? bare;
}

function nowStamp(date) {
  const p = (n, w = 2) => String(n).padStart(w, "0");
  return (
    `${date.getFullYear()}/${p(date.getMonth() + 1)}/${p(date.getDate())} ` +
    `${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}.${p(date.getMilliseconds(), 3)}`
  );
}

// Slow waves, different per GPU, so that two GPUs do not move in lockstep.
function varied(field, value, row, index, seconds) {
  if (!vary || value.startsWith("[")) return value;
  if (/^0( MiB)?$/.test(row.get("memory.used") ?? "")) return value;
  const wave = (period, phase) => (1 + Math.sin((2 * Math.PI * seconds) / period + phase)) / 2;
  if (field === "utilization.gpu") return `${Math.round(100 * wave(40, index))} %`;
  if (field === "utilization.memory") return `${Math.round(60 * wave(40, index + 0.5))} %`;
  if (field === "memory.used") {
    const total = Number(UNIT_VALUE.exec(row.get("memory.total") ?? "")?.[1] ?? NaN);
    if (!Number.isFinite(total)) return value;
    return `${Math.round(total * (0.05 + 0.6 * wave(90, index)))} MiB`;
  }
  return value;
}

/** One answer to a query: the requested columns of every recorded row, with `replaced` values in place of theirs. */
function render(kind, requested, { header, units }, replaced = new Map()) {
  const aliases = kind === "gpu" ? GPU_ALIASES : APP_ALIASES;
  const lines = readRecorded(kind === "gpu" ? "query-gpu__load.csv" : "query-compute-apps__load.csv").filter(
    (line) => line.trim() !== "",
  );
  const recordedHeader = (lines.shift() ?? "").split(", ");
  const names = recordedHeader.map((cell) => canonical(aliases, cell));
  const rows = lines.map((line) => {
    if (LOST_GPU.test(line)) return line;
    const cells = line.split(", ");
    // A name containing ", " leaves surplus cells; they belong to the free-text column.
    const joinAt = names.indexOf(kind === "gpu" ? "name" : "process_name");
    const surplus = cells.length - names.length;
    if (surplus > 0 && joinAt >= 0) cells.splice(joinAt, surplus + 1, cells.slice(joinAt, joinAt + surplus + 1).join(", "));
    return new Map(names.map((name, i) => [name, cells[i] ?? "[N/A]"]));
  });
  const date = new Date();
  const seconds = date.getTime() / 1000;
  const out = [];
  if (header) {
    out.push(
      requested
        .map((field) => {
          const at = names.indexOf(canonical(aliases, field));
          return at >= 0 ? recordedHeader[at].trim() : canonical(aliases, field);
        })
        .join(", "),
    );
  }
  rows.forEach((row, index) => {
    if (typeof row === "string") {
      out.push(row);
      return;
    }
    const cells = requested.map((field) => {
      const name = canonical(aliases, field);
      // The timestamp is the time of this query, never the recorded one: rows of
      // one tick share it and the next tick has a new one, as with nvidia-smi.
      let value = name === "timestamp" ? nowStamp(date) : row.get(name);
      if (value === undefined) value = name === "count" ? String(rows.length) : "[N/A]";
      value = replaced.get(name) ?? varied(name, value, row, index, seconds);
      if (!units) value = value.replace(UNIT_VALUE, "$1");
      return value;
    });
    out.push(cells.join(", "));
  });
  return out.length > 0 ? `${out.join(eol)}${eol}` : "";
}

function parseArgs(argv) {
  const opts = { query: null, fields: [], header: true, units: true, loopMs: null, xml: false, q: false, list: false, version: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = () => inline ?? argv[++i] ?? fail(`Option ${flag} needs a value.`);
    if (flag === "--query-gpu" || flag === "--query-compute-apps") {
      opts.query = flag === "--query-gpu" ? "gpu" : "apps";
      opts.fields = value().split(",").filter(Boolean);
    } else if (flag === "--format") {
      const parts = value().split(",").map((p) => p.trim());
      if (!parts.includes("csv")) fail('"--format" requires "csv".');
      opts.header = !parts.includes("noheader");
      opts.units = !parts.includes("nounits");
    } else if (flag === "-lms" || flag === "--loop-ms") opts.loopMs = Number(value());
    else if (flag === "-l" || flag === "--loop") opts.loopMs = Number(value()) * 1000;
    else if (flag === "-x" || flag === "--xml-format") opts.xml = true;
    else if (flag === "-q" || flag === "--query") opts.q = true;
    else if (flag === "-L" || flag === "--list-gpus") opts.list = true;
    else if (flag === "--version") opts.version = true;
    else fail("Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.");
  }
  if (opts.loopMs !== null && !(opts.loopMs > 0)) fail("Invalid loop interval.");
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
// The reader went away (the source closed its pipe): stop quietly, as nvidia-smi does.
process.stdout.on("error", () => process.exit(0));

if (opts.query) {
  const kind = opts.query;
  const tick = () => {
    const replaced = kind === "gpu" ? replacedValues() : new Map();
    const text = render(kind, opts.fields, { header: opts.header, units: opts.units }, replaced);
    if (tickLog && kind === "gpu") appendFileSync(tickLog, `${Date.now()} ${JSON.stringify(Object.fromEntries(replaced))}\n`);
    // With a loop the header is printed once, as nvidia-smi does.
    process.stdout.write(text);
    opts.header = false;
    if (opts.loopMs !== null) setTimeout(tick, opts.loopMs);
    else process.exitCode = recordedExit;
  };
  tick();
} else if (opts.q && opts.xml) {
  process.stdout.write(`${readRecorded("query-xml.xml").join(eol).trim()}${eol}`);
  process.exitCode = recordedExit;
} else if (opts.q) {
  process.stdout.write(`${readRecorded("query.txt").join(eol).trim()}${eol}`);
  process.exitCode = recordedExit;
} else if (opts.list) {
  process.stdout.write(`${readRecorded("list-L.txt").filter((l) => l.trim() !== "").join(eol)}${eol}`);
  process.exitCode = recordedExit;
} else if (opts.version) {
  process.stdout.write(`${readRecorded("version.txt").join(eol).trim()}${eol}`);
} else {
  fail("fake-nvidia-smi answers only --query-gpu, --query-compute-apps, -q, -q -x, -L and --version.");
}
