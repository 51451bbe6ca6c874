import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

/**
 * What the history benches (history-size.ts, ../bench-usage.ts) share: the
 * PostgreSQL server they make a database on, time literals for their raw
 * SQL, the simulated fleet's inventory, and rows copied back in time.
 */

export type BenchDatabase = "sqlite" | "postgresql";

const DAY_MS = 24 * 60 * 60_000;

/** The server a PostgreSQL bench makes its database on (GPUDESK_TEST_POSTGRES_URL, as the tests). */
export const POSTGRES_ADMIN = process.env.GPUDESK_TEST_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

/** Runs `work` on a connection to `at` (default: the server's admin database). */
export async function withPostgres<T>(work: (client: pg.Client) => Promise<T>, at = POSTGRES_ADMIN): Promise<T> {
  const client = new pg.Client({ connectionString: at });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A time as the database stores Prisma's DateTime, for raw SQL. */
export function timeLiteral(database: BenchDatabase, ms: number): string {
  return database === "sqlite" ? `'${new Date(ms).toISOString().replace("Z", "+00:00")}'` : `timestamp '${new Date(ms).toISOString().replace("T", " ").replace("Z", "")}'`;
}

/** Registers the simulated fleet of `gpus` GPUs (seed 42) as the server would: its hosts and their GPUs; answers the fleet and host ids. */
export async function registerSimulatedFleet(gpus: number, nowMs: number) {
  const { simulatedFleet, simulatedSnapshotAt } = await import("@/host/collector/simulated/simulated-source");
  const { ensureLocalHost, recordHostInventory } = await import("@/server/hosts/host-registry");
  const specs = simulatedFleet({ seed: 42, gpuCount: gpus });
  const hostIds = new Map<string, string>();
  for (const spec of specs) {
    const host = await ensureLocalHost(spec.hostName, true);
    hostIds.set(spec.hostName, host.id);
    const reading = simulatedSnapshotAt(spec, 42, nowMs);
    await recordHostInventory(host.id, reading.host, reading.gpus, new Date(nowMs));
  }
  return { specs, hostIds };
}

/**
 * Copies a table's rows of [nowMs - spanMs, nowMs) (every column, the hour
 * shifted by whole days) back in time, doubling what is there at each
 * statement, down to `sinceMs`: as many rows as a fleet that ran that
 * long, with the span's values.
 */
export async function copyRowsBack(database: BenchDatabase, table: "GpuMinuteBlock" | "GpuHour", nowMs: number, spanMs: number, sinceMs: number): Promise<void> {
  const { db } = await import("@/server/core/db");
  const columns = (
    await db().$queryRawUnsafe<{ name: string }[]>(
      database === "sqlite"
        ? `SELECT name FROM pragma_table_info('${table}')`
        : `SELECT column_name::text AS name FROM information_schema.columns WHERE table_name = '${table}' ORDER BY ordinal_position`,
    )
  ).map((column) => `"${column.name}"`);
  for (let have = spanMs; nowMs - have > sinceMs; have *= 2) {
    const days = have / DAY_MS;
    const shifted = database === "sqlite" ? `strftime('%Y-%m-%dT%H:%M:%S.000+00:00', "hour", '-${days} days')` : `"hour" - interval '${days} days'`;
    const select = columns.map((column) => (column === `"hour"` ? shifted : column)).join(", ");
    await db().$executeRawUnsafe(
      `INSERT INTO "${table}" (${columns.join(", ")}) SELECT ${select} FROM "${table}"
       WHERE "hour" >= ${timeLiteral(database, nowMs - have)} AND ${shifted} >= ${timeLiteral(database, sinceMs)} ON CONFLICT DO NOTHING`,
    );
  }
}

/**
 * A fresh database for one bench process: a SQLite file in a new folder, or
 * a new PostgreSQL database on `POSTGRES_ADMIN`'s server (`create` makes
 * it); `remove` deletes both unless kept. Sets DATABASE_URL and
 * GPUDESK_DATA_DIR before the server's code reads them.
 */
export function benchDatabase(database: BenchDatabase, name: string) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `gpudesk-${name}-`));
  const sqliteFile = path.join(dataDir, "gpudesk.db");
  const pgName = `gpudesk_${name.replace(/-/g, "_")}_${Date.now()}`;
  const url = database === "sqlite" ? `file:${sqliteFile}` : Object.assign(new URL(POSTGRES_ADMIN), { pathname: `/${pgName}` }).toString();
  process.env.GPUDESK_DATA_DIR = dataDir;
  process.env.DATABASE_URL = url;
  return {
    url,
    sqliteFile,
    create: async () => {
      if (database === "postgresql") await withPostgres((client) => client.query(`CREATE DATABASE "${pgName}"`));
    },
    remove: async (keep: boolean) => {
      if (keep) return console.log(`kept: ${url}`);
      rmSync(dataDir, { recursive: true, force: true });
      if (database === "postgresql") await withPostgres((client) => client.query(`DROP DATABASE IF EXISTS "${pgName}" WITH (FORCE)`));
    },
  };
}
