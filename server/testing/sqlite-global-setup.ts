import { rmSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { migrateSqliteTemplate } from "@/server/testing/template-db";

/** The "sqlite" test project's setup: one migrated database that each test file copies. */
export default async function setup(project: TestProject) {
  const template = await migrateSqliteTemplate();
  project.provide("gpudeskSqliteTemplate", template);
  return () => rmSync(path.dirname(template), { recursive: true, force: true });
}
