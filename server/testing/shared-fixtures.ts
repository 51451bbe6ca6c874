import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The real recordings shared by the project's sessions live next to the
 * checkout in ../shared/fixtures, which some checkouts lack. Where they are
 * required (CI: .ci/run sets GPUDESK_TEST_SHARED_REQUIRED=1), a missing folder
 * fails the run instead of quietly skipping the tests on real nvidia-smi
 * output and real topologies.
 */
export const SHARED_REQUIRED = process.env.GPUDESK_TEST_SHARED_REQUIRED === "1";

// Resolved from this file, not "@/server/paths": vitest.config.ts imports it before aliases exist.
export const sharedFixturesRoot = fileURLToPath(new URL("../../../shared/fixtures", import.meta.url));

/** Why the shared fixtures cannot be used, or null when they can. */
export function sharedFixturesMissing(folder = sharedFixturesRoot): string | null {
  return existsSync(folder) ? null : `${folder} is missing`;
}

/**
 * Whether the tests on one folder of ../shared/fixtures can run: true when it
 * exists; else a visible skip, or an error where the fixtures are required.
 */
export function sharedFixturesForTests(folder: string, what: string): boolean {
  const missing = sharedFixturesMissing(folder);
  if (!missing) return true;
  if (SHARED_REQUIRED) throw new Error(`${what}: ${missing} (GPUDESK_TEST_SHARED_REQUIRED=1)`);
  console.warn(`SKIPPED: ${what}: ${missing} (the project's own fixtures still run)`);
  return false;
}
