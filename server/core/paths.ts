import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The checkout (or installed package) root: where package.json, app/ and
 * prisma/ are. Found upwards from this module, which is server/core/paths.ts
 * from source and a chunk under dist/server/ in the prebuilt server.
 */
function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json")) && existsSync(path.join(dir, "prisma"))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(from, "..");
  }
}

export const repoRoot = findRoot(path.dirname(fileURLToPath(import.meta.url)));
