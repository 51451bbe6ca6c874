// `npm run build:host`: the one-file agent and member CLI for GPU hosts (dist/gpudesk.mjs).
import { chmodSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildHostBundle, HOST_BUNDLE_TARGET_BYTES } from "@/server/downloads/build-host-bundle";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = process.argv[2] ? path.resolve(process.argv[2]) : undefined;
const result = await buildHostBundle(root, out);
chmodSync(result.file, 0o755);
const size = `${(result.bytes / 1024).toFixed(0)} KiB`;
process.stdout.write(`host bundle: ${path.relative(process.cwd(), result.file)}, ${size}, built in ${result.ms} ms\n`);
if (result.bytes > HOST_BUNDLE_TARGET_BYTES) {
  process.stderr.write(`warning: the host bundle is over its ${HOST_BUNDLE_TARGET_BYTES / 1024 / 1024} MB target\n`);
}
