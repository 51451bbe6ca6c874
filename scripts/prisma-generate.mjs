#!/usr/bin/env node
// Generates both Prisma clients (npm's postinstall runs this): SQLite's from
// prisma/schema.prisma into node_modules/.prisma/client, and PostgreSQL's from
// the derived prisma/postgres/schema.prisma into node_modules/.prisma/postgres-client.
//
// Prisma gives a client generated to a path of its own a private copy of its
// runtime; the default client uses @prisma/client's. Two runtimes would make
// two sets of classes: a Prisma.sql fragment or a PrismaClientKnownRequestError
// from one is foreign to the other, so raw SQL built with @prisma/client's
// helpers would break on PostgreSQL only. So the PostgreSQL client is pointed
// at @prisma/client's runtime, as the default client is (same Prisma version:
// both come from this package-lock). server/core/db/postgres-client.test.ts checks it.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const prismaCli = require.resolve("prisma/build/index.js");

function generate(args) {
  const result = spawnSync(process.execPath, [prismaCli, "generate", ...args], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

generate([]);
generate(["--config", path.join("prisma", "postgres", "prisma.config.ts")]);

const postgresClient = path.join(root, "node_modules", ".prisma", "postgres-client");
let patched = 0;
for (const name of readdirSync(postgresClient)) {
  if (!name.endsWith(".js") && !name.endsWith(".d.ts")) continue;
  const file = path.join(postgresClient, name);
  const text = readFileSync(file, "utf8");
  const shared = text.replaceAll("'./runtime/", "'@prisma/client/runtime/").replaceAll('"./runtime/', '"@prisma/client/runtime/');
  if (shared !== text) {
    writeFileSync(file, shared);
    patched += 1;
  }
}
if (patched === 0) {
  console.error(`${postgresClient}: found no reference to its own runtime; Prisma's generated layout changed`);
  process.exit(1);
}
