import type { TestProject } from "vitest/node";
import { dropTestPostgresDatabases, newRunPrefix } from "@/server/testing/postgres";

/** The "postgres" test project's setup: names this run's databases, and drops them when the run ends. */
export default function setup(project: TestProject) {
  const runPrefix = newRunPrefix();
  project.provide("gpudeskPostgresRun", runPrefix);
  return async () => {
    await dropTestPostgresDatabases(runPrefix);
  };
}
