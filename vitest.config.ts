import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig, type ViteUserConfig } from "vitest/config";
import { POSTGRES_REQUIRED, postgresUnavailable, TEST_POSTGRES_URL } from "./server/testing/postgres.ts";
import { REDIS_REQUIRED, redisReachable, TEST_REDIS_URL } from "./server/testing/redis.ts";
import { SHARED_REQUIRED, sharedFixturesMissing } from "./server/testing/shared-fixtures.ts";
import { readTestFiles, slowReason } from "./server/testing/test-kinds.ts";

const root = fileURLToPath(new URL(".", import.meta.url));
const testDirs = ["lib", "host", "server", "components", "scripts"];
/** Test files at once; GPUDESK_TEST_WORKERS overrides it (a number, or a share such as "50%"). */
const TEST_WORKERS = process.env.GPUDESK_TEST_WORKERS ?? 4;
/**
 * Files whose assertions are about timers meeting a deadline against a real
 * server (the leader lock's leader stepping down before its lease runs
 * out): run alone after the rest, so that no other worker starves their
 * timers. Few by design; each says why it is here.
 */
const ALONE = ["server/cluster/leader-lock.test.ts"];
/** Tests of PostgreSQL-only code (the migrator): the "postgres" project alone runs them. */
const POSTGRES_ONLY = "**/*.postgres.test.ts";

/**
 * The test files that use the database (they call useTestDatabase()): the
 * "postgres" project runs them again on PostgreSQL. Found by reading the
 * files, so that a new database test runs on both without being listed.
 * The fast ones (server/testing/test-kinds.ts: pure logic, no database,
 * server, process or real-time wait) form the "fast" project; "sqlite"
 * runs the rest, so that every file runs once (database files once more
 * on PostgreSQL).
 */
const testFiles = readTestFiles(root, testDirs);
const databaseTestFiles = testFiles.filter((test) => test.text.includes("useTestDatabase(")).map((test) => test.file);
const fastTestFiles = testFiles.filter((test) => !test.file.endsWith(".postgres.test.ts") && slowReason(test.text) === null).map((test) => test.file);

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
      // No setup file for every test: single sign-on's tests (server/sso/) plug it into sign-in
      // themselves (server/testing/plug-sign-in.ts), as the server does at start. Imported by
      // every file it cost each about 1.5 s of CPU (better-auth, OpenID, LDAP), 400 s a run;
      // without single sign-on configured, sign-in is the same with or without it.
      // The default printout, and each file's wall time for scripts/test-suite.ts's summary.
      reporters: ["default", "./server/testing/timing-reporter.ts"],
      // Most files wait on sockets, timers and child processes, not on the CPU: on two cores,
      // TEST_WORKERS (docs/testing.md, measured at 2, 3 and 4) run at once rather than one.
      maxWorkers: TEST_WORKERS,
      projects: [
        {
          extends: true,
          test: {
            name: "fast",
            include: fastTestFiles,
          },
        },
        {
          extends: true,
          test: {
            name: "sqlite",
            include: testDirs.map((dir) => `${dir}/**/*.test.ts`),
            exclude: [...configDefaults.exclude, POSTGRES_ONLY, ...fastTestFiles, ...ALONE],
            globalSetup: ["server/testing/sqlite-global-setup.ts"],
          },
        },
        {
          extends: true,
          test: {
            name: "alone",
            include: ALONE,
            maxWorkers: 1,
            sequence: { groupOrder: 1 },
          },
        },
        ...(unavailable
          ? []
          : [
              {
                extends: true as const,
                test: {
                  name: "postgres",
                  include: [...databaseTestFiles, ...testDirs.map((dir) => `${dir}/${POSTGRES_ONLY}`)],
                  env: { GPUDESK_TEST_DATABASE: "postgresql" },
                  globalSetup: ["server/testing/postgres-global-setup.ts"],
                      },
              },
            ]),
      ],
    },
  };
});
