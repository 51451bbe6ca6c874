import { statSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";

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
 * Bundles the agent and the member CLI (server/host-cli/main.ts and what it
 * imports: lib/, server/agent, server/collector, server/cli-client and their
 * npm packages) into one ES module that runs with plain Node ≥ 18, without
 * node_modules.
 */
export async function buildHostBundle(root: string, outFile = path.join(root, HOST_BUNDLE_PATH)): Promise<HostBundleResult> {
  const started = Date.now();
  const result = await build({
    absWorkingDir: root,
    entryPoints: [path.join(root, "server/host-cli/main.ts")],
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
