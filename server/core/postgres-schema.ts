/**
 * The PostgreSQL Prisma schema is derived from prisma/schema.prisma (the one
 * source of truth for the models, written for SQLite): the same models with
 * another provider, generating a client of its own. Written to
 * prisma/postgres/schema.prisma by scripts/postgres-schema.ts; a unit test
 * fails when that file is stale.
 */

export const SQLITE_SCHEMA_PATH = "prisma/schema.prisma";
export const POSTGRES_SCHEMA_PATH = "prisma/postgres/schema.prisma";
export const POSTGRES_MIGRATIONS_PATH = "prisma/migrations-postgres";

/**
 * Where the PostgreSQL client is generated (relative to the derived schema):
 * beside Prisma's own `.prisma/client`, so that it is rebuilt by every
 * `npm install` (postinstall) and never committed.
 */
export const POSTGRES_CLIENT_OUTPUT = "../../node_modules/.prisma/postgres-client";

const HEADER = `// GENERATED from prisma/schema.prisma by scripts/postgres-schema.ts: do not edit.
// Change prisma/schema.prisma, then run \`npm run db:postgres-schema -- --migration <name>\`.
`;

function replaceOnce(text: string, pattern: RegExp, replacement: string, what: string): string {
  const matches = text.match(new RegExp(pattern.source, `${pattern.flags.replace("g", "")}g`)) ?? [];
  if (matches.length !== 1) throw new Error(`prisma/schema.prisma: expected one ${what}, found ${matches.length}`);
  return text.replace(pattern, replacement);
}

/** The PostgreSQL schema for a SQLite schema's text. */
export function derivePostgresSchema(sqliteSchema: string): string {
  let schema = sqliteSchema.replace(/\r\n/g, "\n");
  schema = replaceOnce(
    schema,
    /(datasource\s+\w+\s*\{[^}]*?provider\s*=\s*)"sqlite"/,
    '$1"postgresql"',
    'datasource with provider = "sqlite"',
  );
  schema = replaceOnce(
    schema,
    /(generator\s+client\s*\{[^}]*?)(\n\})/,
    `$1\n  output     = "${POSTGRES_CLIENT_OUTPUT}"$2`,
    "generator client block",
  );
  return HEADER + schema;
}
