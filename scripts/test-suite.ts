// `npm test`: the type check, the production build (once, when the sources changed), the unit and
// integration tests (Vitest) and the end-to-end tests (Playwright), in that order, then a printout of
// each phase's wall time, each Vitest project's, and the ten slowest test files and specs, so that a
// regression shows the day it lands. A printout, not a timer: a loaded machine never fails the run.
// Every phase runs even when an earlier test phase failed (one CI run tells everything that is
// broken); a failed type check or build stops the run, since the tests would test something else.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { productionBuildProblem } from "@/server/core/build";
import { VITEST_TIMINGS_FILE, type FileTiming } from "@/server/testing/timing-reporter";
import { E2E_REPORT_FILE } from "../playwright.config";

const root = fileURLToPath(new URL("..", import.meta.url));
const REPORT_DIR = path.join(root, ".test-reports");
const SUMMARY_FILE = path.join(REPORT_DIR, "summary.json");

interface Phase {
  name: string;
  seconds: number;
  exit: number;
  note?: string;
}

function run(command: string, args: string[], env: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
    child.on("error", () => resolve(127));
    child.on("close", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
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

/** Every test of Playwright's JSON report, with its duration (retries added). */
function readSpecTimings(): SpecTiming[] {
  if (!existsSync(E2E_REPORT_FILE)) return [];
  interface Suite { title: string; file?: string; specs?: { title: string; file: string; tests: { status: string; results: { duration: number }[] }[] }[]; suites?: Suite[] }
  const report = JSON.parse(readFileSync(E2E_REPORT_FILE, "utf8")) as { suites: Suite[] };
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
  const lines: string[] = ["", "── test suite timings ──", "phase                      wall      exit"];
  for (const entry of phases) lines.push(`${pad(entry.name, 22)}${secs(entry.seconds)}   ${String(entry.exit).padStart(4)}${entry.note ? `   ${entry.note}` : ""}`);
  const total = phases.reduce((sum, entry) => sum + entry.seconds, 0);
  lines.push(`${pad("total", 22)}${secs(total)}`);

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
for (const file of [VITEST_TIMINGS_FILE, E2E_REPORT_FILE]) rmSync(file, { force: true });
const phases: Phase[] = [];
let failed = false;
const stop = () => {
  printSummary(phases);
  process.exit(1);
};

if ((await phase(phases, "typecheck", async () => ({ exit: await run(bin("tsc"), ["--noEmit"]) }))) !== 0) stop();
// Once, before the tests: the e2e server and the few unit tests that start the real server use it.
const buildExit = await phase(phases, "build", async () => {
  const problem = productionBuildProblem(root);
  if (!problem) return { exit: 0, note: "up to date" };
  return { exit: await run("npm", ["run", "build"]) };
});
if (buildExit !== 0) stop();
if ((await phase(phases, "unit (vitest)", async () => ({ exit: await run(bin("vitest"), ["run"]) }))) !== 0) failed = true;
if ((await phase(phases, "e2e (playwright)", async () => ({ exit: await run(bin("playwright"), ["test"]) }))) !== 0) failed = true;
printSummary(phases);
process.exit(failed ? 1 : 0);
