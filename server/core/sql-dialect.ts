import { Prisma } from "@prisma/client";
import { databaseProvider, env } from "@/server/core/env";

/**
 * The one place where the usage queries differ between SQLite and
 * PostgreSQL: turning a timestamp column into seconds since the epoch, so
 * that rows can be grouped into fixed buckets. Everything else in the raw
 * SQL of server/history/ is written to run on both (quoted identifiers,
 * `ON CONFLICT … excluded`, CASE instead of the two-argument MIN/MAX that
 * the two databases treat differently, Prisma's placeholders).
 */
export type SqlDialect = "sqlite" | "postgresql";

export function sqlDialect(): SqlDialect {
  return databaseProvider(env().DATABASE_URL) ?? "sqlite";
}

/** `column` as whole seconds since the epoch. `column` is a trusted, quoted identifier. */
export function epochSeconds(column: string, dialect: SqlDialect = sqlDialect()): Prisma.Sql {
  // SQLite (through Prisma's adapter) stores DateTime as ISO-8601 text, which unixepoch() reads
  // (SQLite 3.38+; better-sqlite3 12 bundles a newer one). It is cheaper than strftime('%s').
  if (dialect === "sqlite") return Prisma.raw(`unixepoch(${column})`);
  return Prisma.raw(`CAST(EXTRACT(EPOCH FROM ${column}) AS BIGINT)`);
}

/** Start of the `bucketSeconds`-long bucket of `column`, in seconds since the epoch (buckets aligned to the epoch, UTC). */
export function bucketSeconds(column: string, bucketSeconds: number, dialect: SqlDialect = sqlDialect()): Prisma.Sql {
  if (!Number.isInteger(bucketSeconds) || bucketSeconds <= 0) throw new RangeError(`bad bucket ${bucketSeconds}`);
  return Prisma.sql`((${epochSeconds(column, dialect)} / ${Prisma.raw(String(bucketSeconds))}) * ${Prisma.raw(String(bucketSeconds))})`;
}

/** Raw SQL answers integers as bigint on SQLite and numerics as strings on PostgreSQL: one number, 0 for null. */
export function num(value: unknown): number {
  if (value === null || value === undefined) return 0;
  return typeof value === "number" ? value : Number(value);
}

export function numOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : num(value);
}
