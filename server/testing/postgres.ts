import { randomBytes } from "node:crypto";
import pg from "pg";

/**
 * The PostgreSQL server the "postgres" test project runs against: a database
 * that the tests may connect to and whose user may create databases. Each
 * test file gets a database of its own, dropped when the run ends.
 * (Tests read process.env here: this is test setup, not gpudesk's configuration.)
 */
export const TEST_POSTGRES_URL = process.env.GPUDESK_TEST_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

/** Set (to 1) where PostgreSQL must be there, as in CI: then an unreachable server fails the run instead of skipping. */
export const POSTGRES_REQUIRED = process.env.GPUDESK_TEST_POSTGRES_REQUIRED === "1";

declare module "vitest" {
  export interface ProvidedContext {
    /** Prefix of the databases this run creates on the test PostgreSQL server (postgres-global-setup.ts). */
    gpudeskPostgresRun: string;
  }
}

const PREFIX = "gpudesk_test_";

/** Leftovers of runs that were killed before their teardown are dropped after this long. */
const STALE_AFTER_MS = 6 * 3600_000;

/** Why the test server cannot be used, or null when it can. */
export async function postgresUnavailable(url = TEST_POSTGRES_URL): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return null;
  } catch (error) {
    return error instanceof Error ? error.message || String(error) : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A prefix for this run's databases, with its start time, so that a later run can tell stale leftovers. */
export function newRunPrefix(now = Date.now()): string {
  return `${PREFIX}${Math.floor(now / 1000)}_${randomBytes(3).toString("hex")}`;
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The run's migrated template database (postgres-global-setup.ts makes it). */
export function templateDatabaseName(runPrefix: string): string {
  return `${runPrefix}_template`;
}

/** Creates the run's (empty) template database; `migratePostgresTemplate` then migrates it. */
export async function createTemplatePostgresDatabase(runPrefix: string): Promise<void> {
  await withAdmin((client) => client.query(`CREATE DATABASE "${templateDatabaseName(runPrefix)}"`));
}

/**
 * URL of a new database on the test server, named after the run: empty, or
 * with `fromTemplate` a copy of the run's migrated template (a file copy in
 * PostgreSQL, instead of running every migration again).
 */
export async function createTestPostgresDatabase(runPrefix: string, options: { fromTemplate?: boolean } = {}): Promise<string> {
  const name = `${runPrefix}_${randomBytes(4).toString("hex")}`;
  const template = options.fromTemplate ? ` TEMPLATE "${templateDatabaseName(runPrefix)}"` : "";
  await withAdmin(async (client) => {
    // Copies from one template wait for each other; a copy refused because another is reading it is tried again.
    for (let attempt = 1; ; attempt += 1) {
      try {
        await client.query(`CREATE DATABASE "${name}"${template}`);
        return;
      } catch (error) {
        const busy = error instanceof Error && /being accessed by other users/.test(error.message);
        if (!busy || attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  });
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops this run's databases, and those of runs that started long ago and never cleaned up. */
export async function dropTestPostgresDatabases(runPrefix: string, now = Date.now()): Promise<void> {
  await withAdmin(async (client) => {
    const { rows } = await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE starts_with(datname, $1)", [PREFIX]);
    for (const { datname } of rows) {
      const started = Number(/^gpudesk_test_(\d+)_/.exec(datname)?.[1]) * 1000;
      if (datname.startsWith(`${runPrefix}_`) || now - started > STALE_AFTER_MS) {
        // FORCE: a test file that failed may have left its connections open.
        await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
      }
    }
  });
}
