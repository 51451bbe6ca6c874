// `npm test`: the type check beside the production build (once, when the sources changed) and, where
// the install left it out, the compile of better-sqlite3; then the
// end-to-end tests (Playwright) of the fleet and own lanes, then the unit and integration tests
// (Vitest) beside the e2e serial lane, then a printout of
// each phase's wall time, each Vitest project's, and the ten slowest test files and specs, so that a
// regression shows the day it lands. A printout, not a timer: a loaded machine never fails the run.
// Every phase runs even when an earlier test phase failed (one CI run tells everything that is
// broken); a failed type check or build stops the run, since the tests would test something else.
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { productionBuildProblem } from "@/server/core/build";
import { VITEST_TIMINGS_FILE, type FileTiming } from "@/server/testing/timing-reporter";
import { E2E_REPORT_FILE } from "../playwright.config";

/** The serial lane's own run (beside the unit tests): its report and its output folder. */
const E2E_SERIAL_REPORT_FILE = path.join(".test-reports", "e2e-serial.json");
const E2E_SERIAL_OUTPUT_DIR = path.join("test-results", "serial-lane");

const suiteStarted = Date.now();
const root = fileURLToPath(new URL("..", import.meta.url));
const REPORT_DIR = path.join(root, ".test-reports");
const SUMMARY_FILE = path.join(REPORT_DIR, "summary.json");
/** The compiled SQLite binding; without it, nothing reaches a database. */
const NATIVE_ADDON = path.join(root, "node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node");

interface Phase {
  name: string;
  seconds: number;
  exit: number;
  note?: string;
}

/**
 * Runs a command to its end. With `logFile`, its output goes there and is
 * printed whole when it ends, so that two commands running at once do not
 * interleave their lines.
 */
function run(command: string, args: string[], env: Record<string, string> = {}, logFile?: string): Promise<number> {
  return new Promise((resolve) => {
    const log = logFile ? openSync(logFile, "w") : undefined;
    const child = spawn(command, args, { cwd: root, stdio: log === undefined ? "inherit" : ["ignore", log, log], env: { ...process.env, ...env } });
    const done = (exit: number) => {
      if (log !== undefined) {
        closeSync(log);
        process.stdout.write(readFileSync(logFile!, "utf8"));
      }
      resolve(exit);
    };
    child.on("error", () => done(127));
    child.on("close", (code, signal) => done(code ?? (signal ? 128 : 1)));
  });
}

const bin = (name: string) => path.join(root, "node_modules", ".bin", name);

async function phase(phases: Phase[], name: string, work: () => Promise<{ exit: number; note?: string }>): Promise<number> {
  process.stdout.write(`\n▶ ${name}\n`);
  const started = Date.now();
  const { exit, note } = await work();
  phases.push({ name, seconds: (Date.now() - started) / 1000, exit, note });
  return exit;
}

interface SpecTiming {
  file: string;
  title: string;
  seconds: number;
  status: string;
}

/** Every test of Playwright's JSON reports (the lanes' run and the serial lane's), with its duration (retries added). */
function readSpecTimings(): SpecTiming[] {
  return [E2E_REPORT_FILE, E2E_SERIAL_REPORT_FILE].flatMap(readReport);
}

function readReport(file: string): SpecTiming[] {
  if (!existsSync(file)) return [];
  interface Suite { title: string; file?: string; specs?: { title: string; file: string; tests: { status: string; results: { duration: number }[] }[] }[]; suites?: Suite[] }
  const report = JSON.parse(readFileSync(file, "utf8")) as { suites: Suite[] };
  const found: SpecTiming[] = [];
  const visit = (suite: Suite) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests) {
        found.push({ file: spec.file, title: spec.title, seconds: test.results.reduce((sum, result) => sum + result.duration, 0) / 1000, status: test.status });
      }
    }
    for (const child of suite.suites ?? []) visit(child);
  };
  for (const suite of report.suites) visit(suite);
  return found;
}

const pad = (text: string, width: number) => text.padEnd(width);
const secs = (seconds: number) => `${seconds.toFixed(1)} s`.padStart(9);

function printSummary(phases: Phase[]): void {
  const lines: string[] = ["", "── test suite timings ──", "phase                          wall      exit"];
  for (const entry of phases) lines.push(`${pad(entry.name, 26)}${secs(entry.seconds)}   ${String(entry.exit).padStart(4)}${entry.note ? `   ${entry.note}` : ""}`);
  // Wall time, not the phases summed: some run side by side.
  lines.push(`${pad("total", 26)}${secs((Date.now() - suiteStarted) / 1000)}`);

  const files: FileTiming[] = existsSync(VITEST_TIMINGS_FILE) ? (JSON.parse(readFileSync(VITEST_TIMINGS_FILE, "utf8")) as FileTiming[]) : [];
  const projects = new Map<string, FileTiming[]>();
  for (const file of files) projects.set(file.project, [...(projects.get(file.project) ?? []), file]);
  if (projects.size > 0) {
    lines.push("", "unit project      files   tests   span (first start → last end)   file time summed");
    for (const [name, list] of [...projects].sort(([a], [b]) => a.localeCompare(b))) {
      const first = Math.min(...list.map((file) => file.startedAtMs));
      const last = Math.max(...list.map((file) => file.startedAtMs + file.seconds * 1000));
      const tests = list.reduce((sum, file) => sum + file.tests, 0);
      const summed = list.reduce((sum, file) => sum + file.seconds, 0);
      lines.push(`${pad(name, 16)}${String(list.length).padStart(6)}${String(tests).padStart(8)}   ${secs((last - first) / 1000)}                       ${secs(summed)}`);
    }
    lines.push("", "ten slowest unit test files:");
    for (const file of [...files].sort((a, b) => b.seconds - a.seconds).slice(0, 10)) lines.push(`  ${secs(file.seconds)}  [${file.project}] ${file.file}`);
  }

  const specs = readSpecTimings();
  if (specs.length > 0) {
    const byFile = new Map<string, number>();
    for (const spec of specs) byFile.set(spec.file, (byFile.get(spec.file) ?? 0) + spec.seconds);
    lines.push("", `e2e: ${specs.length} tests in ${byFile.size} files; ten slowest spec files (test time summed):`);
    for (const [file, seconds] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 10)) lines.push(`  ${secs(seconds)}  ${file}`);
    lines.push("ten slowest e2e tests:");
    for (const spec of [...specs].sort((a, b) => b.seconds - a.seconds).slice(0, 10)) lines.push(`  ${secs(spec.seconds)}  ${spec.file} › ${spec.title}`);
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  writeFileSync(SUMMARY_FILE, `${JSON.stringify({ phases, unitFiles: files, e2eTests: specs }, null, 1)}\n`);
}

mkdirSync(REPORT_DIR, { recursive: true });
for (const file of [VITEST_TIMINGS_FILE, E2E_REPORT_FILE, E2E_SERIAL_REPORT_FILE]) rmSync(file, { force: true });
const phases: Phase[] = [];
let failed = false;
const stop = () => {
  printSummary(phases);
  process.exit(1);
};

// The type check and the production build side by side: each leaves a core
// idle most of its time (tsc is one thread; next build waits on its workers),
// and neither reads what the other writes. The build is done once, before the
// tests: the e2e server and the few unit tests that start the real server use it.
const [nativeExit, typecheckExit, buildExit] = await Promise.all([
  // better-sqlite3 compiles from source where its prebuilt binary cannot be
  // downloaded (CI: only the npm registry is reachable), about a minute on one
  // core. `.ci/run` installs with that install script left out and it runs
  // here, beside the type check and the build, which do not load it.
  phase(phases, "native addon (better-sqlite3)", async () => {
    if (existsSync(NATIVE_ADDON)) return { exit: 0, note: "built" };
    return { exit: await run("npm", ["rebuild", "better-sqlite3"], {}, path.join(REPORT_DIR, "native-addon.log")) };
  }),
  phase(phases, "typecheck", async () => ({ exit: await run(bin("tsc"), ["--noEmit", "-p", "tsconfig.typecheck.json"]) })),
  phase(phases, "build", async () => {
    const problem = productionBuildProblem(root);
    if (!problem) return { exit: 0, note: "up to date" };
    return { exit: await run("npm", ["run", "build"]) };
  }),
]);
if (nativeExit !== 0 || typecheckExit !== 0 || buildExit !== 0) stop();
// The e2e lanes that share the fleet ("fleet" and "own", side by side), then
// the unit tests beside the serial lane: the serial lane changes what every
// spec lives under, so it runs once the others are done, and it waits on the
// idle rule's passes more than it computes, so it costs the unit tests little.
if ((await phase(phases, "e2e (fleet, own lanes)", async () => ({ exit: await run(bin("playwright"), ["test", "--project", "fleet", "--project", "own"]) }))) !== 0) failed = true;
const [unitExit, serialExit] = await Promise.all([
  phase(phases, "unit (vitest)", async () => ({ exit: await run(bin("vitest"), ["run"]) })),
  phase(phases, "e2e (serial lane)", async () => ({
    exit: await run(
      bin("playwright"),
      ["test", "--project", "serial", "--no-deps"],
      { E2E_REPORT_FILE: E2E_SERIAL_REPORT_FILE, E2E_OUTPUT_DIR: E2E_SERIAL_OUTPUT_DIR },
      path.join(REPORT_DIR, "e2e-serial.log"),
    ),
    note: "beside the unit tests; its output is printed when it ends",
  })),
]);
if (unitExit !== 0 || serialExit !== 0) failed = true;
printSummary(phases);
process.exit(failed ? 1 : 0);
