// `npm run build` runs this after `next build`: the one-file agent and member CLI for GPU hosts
// (dist/gpudesk.mjs, rebuilt when its sources changed; --force rebuilds anyway) and the prebuilt
// server (dist/server/, so that `npm start` compiles no TypeScript).
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { markProductionBuild } from "@/server/core/build";
import { ensureHostBundle, HOST_BUNDLE_PATH, HOST_BUNDLE_TARGET_BYTES } from "@/server/downloads/build-host-bundle";
import { buildServerBundle } from "@/server/core/server-bundle";

const root = fileURLToPath(new URL("..", import.meta.url));
if (process.argv.includes("--force")) rmSync(path.join(root, `${HOST_BUNDLE_PATH}.stamp`), { force: true });
const host = await ensureHostBundle(root);
if (host) {
  process.stdout.write(`host bundle: ${HOST_BUNDLE_PATH}, ${(host.bytes / 1024).toFixed(0)} KiB, built in ${host.ms} ms\n`);
  if (host.bytes > HOST_BUNDLE_TARGET_BYTES) {
    process.stderr.write(`warning: the host bundle is over its ${HOST_BUNDLE_TARGET_BYTES / 1024 / 1024} MB target\n`);
  }
} else {
  process.stdout.write(`host bundle: ${HOST_BUNDLE_PATH} is up to date\n`);
}
if (!process.argv.includes("--host-only")) {
  const server = await buildServerBundle(root);
  process.stdout.write(`server: ${path.relative(root, server.dir)}, built in ${server.ms} ms\n`);
  // `next build` ran just before this script: the next start need not build again.
  markProductionBuild(root);
}
