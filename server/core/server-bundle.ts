import { rmSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";

/** The prebuilt server and admin CLI; bin/gpudesk.js runs it instead of compiling TypeScript when it is newer than the sources. */
export const SERVER_BUNDLE_DIR = path.join("dist", "server");

/**
 * Compiles server/cli.ts and what it imports from server/ and lib/ to plain
 * ES modules, once, at build time: starting through tsx compiles (or reads
 * from tsx's cache and checks) some 150 TypeScript files on every start.
 * Packages stay in node_modules (Next, Prisma and better-sqlite3 load files
 * of their own), and every dynamic import stays a chunk loaded on use, so
 * that `gpudesk user add` does not load Next.
 */
export async function buildServerBundle(root: string): Promise<{ dir: string; ms: number }> {
  const started = Date.now();
  const dir = path.join(root, SERVER_BUNDLE_DIR);
  rmSync(dir, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: [path.join(root, "server/cli.ts")],
    outdir: dir,
    entryNames: "[name]",
    chunkNames: "chunks/[name]-[hash]",
    splitting: true,
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    tsconfig: path.join(root, "tsconfig.json"),
    logLevel: "warning",
  });
  return { dir, ms: Date.now() - started };
}
