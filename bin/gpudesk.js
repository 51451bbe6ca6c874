#!/usr/bin/env node
// gpudesk's command line. The project is TypeScript: `npm run build` compiles
// the server and its commands to dist/server/ (server/core/server-bundle.ts), which
// runs when it is newer than every file it is built from; otherwise (a
// checkout that was never built, or sources edited since) tsx compiles the
// sources on load, with the project's tsconfig wherever the command is started from.
import { existsSync, readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const built = fileURLToPath(new URL("../dist/server/cli.js", import.meta.url));

function newestUnder(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestUnder(full) : statSync(full).mtimeMs);
  }
  return newest;
}

function builtIsFresh() {
  if (!existsSync(built)) return false;
  const builtAt = statSync(built).mtimeMs;
  const source = (relative) => fileURLToPath(new URL(`../${relative}`, import.meta.url));
  return newestUnder(source("server")) < builtAt && newestUnder(source("lib")) < builtAt && statSync(source("package.json")).mtimeMs < builtAt;
}

if (builtIsFresh()) {
  await import(built);
} else {
  const { register } = await import("tsx/esm/api");
  register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) });
  await import("../server/cli.ts");
}
