import type { TestProject } from "vitest/node";
import { createTemplatePostgresDatabase, dropTestPostgresDatabases, newRunPrefix, TEST_POSTGRES_URL } from "@/server/testing/postgres";
import { migratePostgresTemplate } from "@/server/testing/template-db";

/**
 * The "postgres" test project's setup: names this run's databases, migrates
 * the template each test file's database is copied from, and drops them all
 * when the run ends.
 */
export default async function setup(project: TestProject) {
  const runPrefix = newRunPrefix();
  await createTemplatePostgresDatabase(runPrefix);
  await migratePostgresTemplate(runPrefix, TEST_POSTGRES_URL);
  project.provide("gpudeskPostgresRun", runPrefix);
  return async () => {
    await dropTestPostgresDatabases(runPrefix);
  };
}
