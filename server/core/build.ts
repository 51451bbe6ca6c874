import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { log } from "@/server/core/log";

const require = createRequire(import.meta.url);

/** What the web app (pages and the server code its routes import) is built from; a change in any needs a new build. */
const BUILD_INPUTS = [
  "app",
  "components",
  "lib",
  "host",
  "server",
  "prisma/schema.prisma",
  "next.config.js",
  "postcss.config.mjs",
  "package-lock.json",
  "tsconfig.json",
];

/** A digest of files and folders (recursively) under root: a changed digest means a stale build. */
export function hashInputs(root: string, inputs: readonly string[] = BUILD_INPUTS): string {
  const hash = createHash("sha256");
  const visit = (relative: string) => {
    const full = path.join(root, relative);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) visit(path.join(relative, name));
    } else {
      hash.update(relative).update("\0").update(readFileSync(full)).update("\0");
    }
  };
  for (const input of inputs) visit(input);
  return hash.digest("hex");
}

const stampPath = (root: string) => path.join(root, ".next", "gpudesk-build-stamp");

/**
 * Records that `.next` was built from the sources as they are now: what
 * `npm run build` does after `next build`, so that the next `npm start`
 * does not build the same sources again.
 */
export function markProductionBuild(root: string): void {
  writeFileSync(stampPath(root), hashInputs(root));
}

/**
 * Why the production build cannot serve the sources as they are (missing, or
 * built from other sources), or null when it can. Tests that start the real
 * server use the build made once before them (`npm test` and `.ci/run` build
 * first) and say this rather than build inside a test worker.
 */
export function productionBuildProblem(root: string): string | null {
  const stampFile = stampPath(root);
  if (!existsSync(path.join(root, ".next", "BUILD_ID")) || !existsSync(stampFile)) return "there is no production build: run `npm run build` first (`npm test` does)";
  if (readFileSync(stampFile, "utf8") !== hashInputs(root)) return "the production build is older than the sources: run `npm run build` again (`npm test` does)";
  return null;
}

/**
 * Builds the production bundle when there is none or when its sources
 * changed since it was built, so `npm start` works right after `npm install`
 * and after a `git pull`.
 */
export async function ensureProductionBuild(root: string): Promise<void> {
  if (productionBuildProblem(root) === null) return;
  // The sources as they are when the build starts: an edit during the build makes the next start build again.
  const wanted = hashInputs(root);
  log.info("building the web app (first start or changed sources; about two minutes on two cores)…");
  const started = Date.now();
  const nextCli = require.resolve("next/dist/bin/next");
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, [nextCli, "build"], {
      cwd: root,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
      stdio: ["ignore", "inherit", "inherit"],
    });
    child.on("error", reject);
    child.on("close", resolve);
  });
  if (code !== 0) throw new Error(`next build failed (exit ${code})`);
  // What `npm run build` also makes: the next start runs the server without compiling TypeScript.
  const { buildServerBundle } = await import("@/server/core/server-bundle");
  await buildServerBundle(root);
  writeFileSync(stampPath(root), wanted);
  log.info(`web app built in ${Math.round((Date.now() - started) / 1000)} s`);
}
