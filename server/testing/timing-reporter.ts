import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

/** Where the unit run's timings go; scripts/test-suite.ts reads them for its printout. */
export const VITEST_TIMINGS_FILE = path.join(".test-reports", "vitest-timings.json");

export interface FileTiming {
  project: string;
  /** Relative to the repository root. */
  file: string;
  tests: number;
  /** Wall time from the worker taking the file to its end, import and hooks included. */
  seconds: number;
  startedAtMs: number;
}

/**
 * Writes each test file's project, test count and wall time (a Vitest
 * reporter beside the default one): what the suite's printout of phase
 * times and the slowest files is made from, so that a regression is seen
 * the day it lands.
 */
export default class TimingReporter implements Reporter {
  private readonly started = new Map<string, number>();
  private readonly timings: FileTiming[] = [];

  onTestModuleQueued(module: TestModule): void {
    this.started.set(module.id, Date.now());
  }

  onTestModuleEnd(module: TestModule): void {
    const startedAtMs = this.started.get(module.id) ?? Date.now();
    this.timings.push({
      project: module.project.name,
      file: path.relative(process.cwd(), module.moduleId).split(path.sep).join("/"),
      tests: [...module.children.allTests()].length,
      seconds: (Date.now() - startedAtMs) / 1000,
      startedAtMs,
    });
  }

  onTestRunEnd(): void {
    mkdirSync(path.dirname(VITEST_TIMINGS_FILE), { recursive: true });
    writeFileSync(VITEST_TIMINGS_FILE, `${JSON.stringify(this.timings, null, 1)}\n`);
  }
}
