import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { resolveSqlitePath } from "@/server/sqlite-path";

const require = createRequire(import.meta.url);

/**
 * Creates the SQLite database if needed and applies pending migrations with
 * Prisma's own `migrate deploy` (WebAssembly schema engine, no download).
 */
export async function migrateDatabase(databaseUrl: string, repoRoot: string): Promise<void> {
  mkdirSync(path.dirname(resolveSqlitePath(databaseUrl)), { recursive: true });
  const prismaCli = require.resolve("prisma/build/index.js");
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, [prismaCli, "migrate", "deploy"], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    child.on("error", reject);
    child.on("close", resolve);
  });
  if (code !== 0) throw new Error(`database migration failed:\n${output.join("").trim()}`);
}
