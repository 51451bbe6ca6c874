import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import pg from "pg";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { db } from "@/server/core/db";
import { migrateDatabase } from "@/server/core/migrate";
import { repoRoot } from "@/server/core/paths";
import { decodeMinuteBlock } from "@/server/minutes/minute-block";
import { HOUR_MS, MINUTE_MS } from "@/server/minutes/minute-row";
import { pruneHistory } from "@/server/history/retention";
import { recomputeHours, upsertMinuteRows } from "@/server/history/rollup-store";
import { gpuUuid, makeReadMinute } from "@/server/testing/factories";
import { createTestPostgresDatabase } from "@/server/testing/postgres";
import { testDatabaseProvider, useTestDatabase } from "@/server/testing/test-db";

/**
 * A database whose old minutes were rolled up and pruned is backed up and
 * restored the way docs/operations.md says (`gpudesk backup` for SQLite,
 * pg_dump and pg_restore for PostgreSQL), and the copy holds the same
 * rollups and migrates at start-up.
 */
const run = promisify(execFile);
const DAY_MS = 24 * HOUR_MS;
const NOW = Date.UTC(2026, 11, 4, 12, 0, 0);
let url: string;
let uuid: string;

const minuteAt = (at: number, i: number) => makeReadMinute(uuid, at, { utilAvg: i % 100, utilMax: 100, busy: true });

/** Rollups of the GPU, as counts and the sums a report adds up: the minutes decoded from their blocks. */
function tally(hours: { n: unknown; samples: unknown }[], blocks: { data: Uint8Array }[]) {
  const minutes = blocks.flatMap((block) => decodeMinuteBlock(uuid, 0, block.data));
  return {
    minute: { n: minutes.length, samples: minutes.reduce((sum, row) => sum + row.samples, 0) },
    hour: { n: Number(hours[0]!.n), samples: Number(hours[0]!.samples) },
  };
}
const HOURS_SQL = `SELECT COUNT(*) AS n, SUM("samples") AS samples FROM "GpuHour" WHERE "gpuUuid" = $1`;
const BLOCKS_SQL = `SELECT "data" FROM "GpuMinuteBlock" WHERE "gpuUuid" = $1`;

beforeAll(async () => {
  url = await useTestDatabase();
  uuid = gpuUuid();
  // Two days of minutes 40 days back and the last hour: the old ones go, the hour stays.
  const old = Array.from({ length: 2 * 24 * 60 }, (_, i) => minuteAt(NOW - 40 * DAY_MS + i * MINUTE_MS, i));
  const recent = Array.from({ length: 60 }, (_, i) => minuteAt(NOW - HOUR_MS + i * MINUTE_MS, i));
  await upsertMinuteRows(db(), [...old, ...recent]);
  await recomputeHours(db(), [NOW - HOUR_MS]);
  expect(await pruneHistory(new Date(NOW), { minuteDays: 30, hourDays: 365 })).toMatchObject({ minuteBlocks: 48, hoursRolledUp: 48 });
}, 120_000);

describe("backup and restore of a pruned database", () => {
  it.runIf(testDatabaseProvider() === "sqlite")("gpudesk backup copies it and the copy restores with the same rollups", async () => {
    const work = mkdtempSync(path.join(os.tmpdir(), "gpudesk-pruned-backup-"));
    const backupFile = path.join(work, "backup.db");
    const { stderr } = await run(process.execPath, ["bin/gpudesk.js", "backup", backupFile], { cwd: repoRoot, env: { ...process.env, DATABASE_URL: url } });
    expect(stderr).toContain(`Backed up ${url} to ${backupFile}`);

    const restoredDir = path.join(work, "restored");
    mkdirSync(restoredDir);
    copyFileSync(backupFile, path.join(restoredDir, "gpudesk.db"));
    await migrateDatabase(`file:${path.join(restoredDir, "gpudesk.db")}`, repoRoot);
    const live = new Database(url.slice("file:".length), { readonly: true });
    const restored = new Database(path.join(restoredDir, "gpudesk.db"), { readonly: true });
    try {
      expect(restored.pragma("integrity_check", { simple: true })).toBe("ok");
      const of = (file: Database.Database) => tally(file.prepare(HOURS_SQL.replace("$1", "?")).all(uuid) as never, file.prepare(BLOCKS_SQL.replace("$1", "?")).all(uuid) as never);
      const copy = of(restored);
      expect(copy).toEqual({ minute: { n: 60, samples: 720 }, hour: { n: 49, samples: 49 * 60 } });
      expect(copy).toEqual(of(live));
    } finally {
      restored.close();
      live.close();
    }
  }, 120_000);

  it.runIf(testDatabaseProvider() === "postgresql")("pg_dump and pg_restore copy it and the copy restores with the same rollups", async () => {
    const work = mkdtempSync(path.join(os.tmpdir(), "gpudesk-pruned-dump-"));
    const dump = path.join(work, "gpudesk.dump");
    await run("pg_dump", ["--format=custom", `--file=${dump}`, url]);
    const restoredUrl = await createTestPostgresDatabase(inject("gpudeskPostgresRun"));
    await run("pg_restore", ["--no-owner", `--dbname=${restoredUrl}`, dump]);
    await migrateDatabase(restoredUrl, repoRoot);
    const count = async (at: string) => {
      const client = new pg.Client({ connectionString: at });
      await client.connect();
      try {
        return tally((await client.query(HOURS_SQL, [uuid])).rows, (await client.query(BLOCKS_SQL, [uuid])).rows);
      } finally {
        await client.end();
      }
    };
    const copy = await count(restoredUrl);
    expect(copy).toEqual({ minute: { n: 60, samples: 720 }, hour: { n: 49, samples: 49 * 60 } });
    expect(copy).toEqual(await count(url));
  }, 120_000);
});
