import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { hashInputs } from "@/server/core/build";

/** Where the host bundle is written, relative to the checkout; the server serves it from there. */
export const HOST_BUNDLE_PATH = path.join("dist", "gpudesk.mjs");

/** Well under what a GPU node would notice; the build warns above it. */
export const HOST_BUNDLE_TARGET_BYTES = 2 * 1024 * 1024;

export interface HostBundleResult {
  file: string;
  bytes: number;
  ms: number;
  /** The source files in the bundle, relative to the checkout (node_modules/… for packages). */
  inputs: string[];
}

/**
 * Bundles the agent and the member CLI (host/cli/main.ts and what it
 * imports: lib/, host/agent, host/collector, host/cli-client and their
 * npm packages) into one ES module that runs with plain Node ≥ 18, without
 * node_modules.
 */
export async function buildHostBundle(root: string, outFile = path.join(root, HOST_BUNDLE_PATH)): Promise<HostBundleResult> {
  const started = Date.now();
  // Loaded here, not with the module: the server imports this file on every start but builds only when the bundle is stale.
  const { build } = await import("esbuild");
  const result = await build({
    absWorkingDir: root,
    entryPoints: [path.join(root, "host/cli/main.ts")],
    outfile: outFile,
    tsconfig: path.join(root, "tsconfig.json"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node18",
    minify: true,
    legalComments: "eof",
    logLevel: "warning",
    // CommonJS packages (commander, socket.io-client's ws) call require() for Node's own modules,
    // which an ES module does not have: give them one.
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __gpudeskCreateRequire } from 'node:module';\nconst require = __gpudeskCreateRequire(import.meta.url);",
    },
    // ws loads these optional native speed-ups inside try/catch; without them it uses plain JavaScript.
    external: ["bufferutil", "utf-8-validate"],
    metafile: true,
  });
  const inputs = Object.keys(result.metafile.inputs);
  return { file: outFile, bytes: statSync(outFile).size, ms: Date.now() - started, inputs };
}

/** What the host bundle is built from; a change in any needs a new bundle. */
const HOST_BUNDLE_INPUTS = [
  "lib",
  "host/agent",
  "host/collector",
  "host/cli-client",
  "host/cli",
  "server/downloads/build-host-bundle.ts",
  "package.json",
  "package-lock.json",
  "tsconfig.json",
];

/**
 * Builds dist/gpudesk.mjs when it is missing or older than its sources, so
 * that the server always serves the agent of its own version (`npm run build`
 * builds it too; this covers the build-on-first-start path and `npm run dev`).
 */
export async function ensureHostBundle(root: string): Promise<HostBundleResult | null> {
  const file = path.join(root, HOST_BUNDLE_PATH);
  const stampFile = `${file}.stamp`;
  const wanted = hashInputs(root, HOST_BUNDLE_INPUTS);
  if (existsSync(file) && existsSync(stampFile) && readFileSync(stampFile, "utf8") === wanted) return null;
  const result = await buildHostBundle(root, file);
  chmodSync(file, 0o755);
  writeFileSync(stampFile, wanted);
  return result;
}
