import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backupDatabase } from "@/server/core/db-backup";
import { migrateDatabase } from "@/server/core/migrate";
import { repoRoot } from "@/server/core/paths";

/**
 * `gpudesk backup` while another process keeps writing, then the restore
 * the docs describe (the copy becomes gpudesk.db of a data directory).
 */

const BATCH = 10;
let work: string;

beforeAll(() => {
  work = mkdtempSync(path.join(os.tmpdir(), "gpudesk-backup-"));
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** Inserts hosts in transactions of BATCH rows as fast as it can; prints the number of each committed batch. */
const WRITER = `
const Database = require("better-sqlite3");
const db = new Database(process.argv[1]);
db.pragma("busy_timeout = 10000");
const insert = db.prepare('INSERT INTO "Host" (id, name, updatedAt) VALUES (?, ?, ?)');
const batch = db.transaction((n) => { for (let i = 0; i < ${BATCH}; i++) insert.run("b" + n + "-" + i, "batch-" + n + "-" + i, Date.now()); });
let n = 0;
const tick = () => { batch(n); process.stdout.write(n + "\\n"); n += 1; setImmediate(tick); };
tick();
`;

describe("gpudesk backup", () => {
  it("copies the database consistently while another process writes, and the copy restores", async () => {
    const liveDir = path.join(work, "live");
    const liveUrl = `file:${path.join(liveDir, "gpudesk.db")}`;
    await migrateDatabase(liveUrl, repoRoot);

    const writer = spawn(process.execPath, ["-e", WRITER, path.join(liveDir, "gpudesk.db")], { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] });
    let committed = -1;
    writer.stdout.on("data", (chunk: Buffer) => {
      const lines = chunk.toString().trim().split("\n");
      committed = Number(lines[lines.length - 1]);
    });
    const backupFile = path.join(work, "gpudesk-backup.db");
    let committedBeforeBackup: number;
    try {
      await expect.poll(() => committed, { timeout: 20_000 }).toBeGreaterThan(50);
      committedBeforeBackup = committed;
      // The real command, as an operator runs it, while the writer goes on.
      // Not spawnSync: this process must keep reading the writer's progress meanwhile.
      const command = spawn(process.execPath, ["bin/gpudesk.js", "backup", backupFile], { cwd: repoRoot, env: { ...process.env, DATABASE_URL: liveUrl } });
      const result = { status: null as number | null, stderr: "" };
      command.stderr.on("data", (chunk: Buffer) => (result.stderr += chunk.toString()));
      result.status = await new Promise<number | null>((resolve) => command.on("close", resolve));
      expect(result.status, result.stderr).toBe(0);
      expect(result.stderr).toContain(`Backed up ${liveUrl} to ${backupFile}`);
      expect(committed, "the writer kept writing during the backup").toBeGreaterThan(committedBeforeBackup);
    } finally {
      writer.kill("SIGKILL");
    }
    expect(existsSync(`${backupFile}.partial`)).toBe(false);
    expect(statSync(backupFile).mode & 0o777, "readable by its owner alone, like the database").toBe(0o600);

    // Restore: the copy becomes the database of a fresh data directory, and the server's start-up migration accepts it.
    const restoredDir = path.join(work, "restored");
    mkdirSync(restoredDir);
    copyFileSync(backupFile, path.join(restoredDir, "gpudesk.db"));
    await migrateDatabase(`file:${path.join(restoredDir, "gpudesk.db")}`, repoRoot);
    const restored = new Database(path.join(restoredDir, "gpudesk.db"), { readonly: true });
    try {
      expect(restored.pragma("integrity_check", { simple: true })).toBe("ok");
      const batches = restored.prepare(`SELECT substr(name, 1, instr(substr(name, 7), '-') + 5) AS batch, count(*) AS n FROM "Host" GROUP BY batch`).all() as { batch: string; n: number }[];
      // Every batch that had committed before the backup began is there, and no batch is there in part.
      expect(batches.length).toBeGreaterThan(committedBeforeBackup);
      expect(batches.filter((row) => row.n !== BATCH)).toEqual([]);
    } finally {
      restored.close();
    }
  }, 120_000);

  it("points PostgreSQL to pg_dump and refuses to overwrite the database with itself", async () => {
    await expect(backupDatabase("postgresql://gpudesk:secret@db/gpudesk", path.join(work, "x.db"))).rejects.toThrow(/pg_dump.*\n?|pg_dump/);
    const url = `file:${path.join(work, "self", "gpudesk.db")}`;
    await migrateDatabase(url, repoRoot);
    await expect(backupDatabase(url, path.join(work, "self", "gpudesk.db"))).rejects.toThrow("another file");
  });
});
