import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig, type ViteUserConfig } from "vitest/config";
import { POSTGRES_REQUIRED, postgresUnavailable, TEST_POSTGRES_URL } from "./server/testing/postgres.ts";
import { REDIS_REQUIRED, redisReachable, TEST_REDIS_URL } from "./server/testing/redis.ts";
import { SHARED_REQUIRED, sharedFixturesMissing } from "./server/testing/shared-fixtures.ts";

const root = fileURLToPath(new URL(".", import.meta.url));
const testDirs = ["lib", "server", "components", "scripts"];
/** Tests of PostgreSQL-only code (the migrator): the "postgres" project alone runs them. */
const POSTGRES_ONLY = "**/*.postgres.test.ts";

/**
 * The test files that use the database (they call useTestDatabase()): the
 * "postgres" project runs them again on PostgreSQL. Found by reading the
 * files, so that a new database test runs on both without being listed.
 */
function databaseTestFiles(): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(relative);
      else if (entry.name.endsWith(".test.ts") && readFileSync(path.join(root, relative), "utf8").includes("useTestDatabase(")) {
        found.push(relative.split(path.sep).join("/"));
      }
    }
  };
  for (const dir of testDirs) visit(dir);
  return found.sort();
}

export default defineConfig(async (): Promise<ViteUserConfig> => {
  const unavailable = await postgresUnavailable();
  if (unavailable) {
    const where = new URL(TEST_POSTGRES_URL).host;
    if (POSTGRES_REQUIRED) throw new Error(`PostgreSQL for the tests (${where}) is unreachable: ${unavailable}`);
    console.warn(`\n⚠ PostgreSQL tests SKIPPED: ${where} is unreachable (${unavailable}). Set GPUDESK_TEST_POSTGRES_URL to use another server.\n`);
  }
  // Where CI requires them, stop before any test runs rather than fail file by file (each file checks again).
  if (REDIS_REQUIRED && !(await redisReachable())) throw new Error(`Redis for the tests (${TEST_REDIS_URL}) is unreachable`);
  const sharedMissing = sharedFixturesMissing();
  if (SHARED_REQUIRED && sharedMissing) throw new Error(`the shared fixtures are required: ${sharedMissing}`);
  return {
    resolve: {
      alias: { "@": root },
    },
    test: {
      environment: "node",
      testTimeout: 20_000,
      // Setup hooks migrate a database and hash passwords: on a busy 2-core machine, more than the default 10 s.
      hookTimeout: 60_000,
      pool: "forks",
      projects: [
        {
          extends: true,
          test: {
            name: "sqlite",
            include: testDirs.map((dir) => `${dir}/**/*.test.ts`),
            exclude: [...configDefaults.exclude, POSTGRES_ONLY],
          },
        },
        ...(unavailable
          ? []
          : [
              {
                extends: true as const,
                test: {
                  name: "postgres",
                  include: [...databaseTestFiles(), ...testDirs.map((dir) => `${dir}/${POSTGRES_ONLY}`)],
                  env: { GPUDESK_TEST_DATABASE: "postgresql" },
                  globalSetup: ["server/testing/postgres-global-setup.ts"],
                },
              },
            ]),
      ],
    },
  };
});
