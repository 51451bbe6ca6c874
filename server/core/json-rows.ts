import { Prisma } from "@prisma/client";
import { sqlDialect } from "@/server/core/sql-dialect";

/**
 * Bulk writes that both SQLite and PostgreSQL run: `INSERT INTO … SELECT …
 * ON CONFLICT` from rows sent as one JSON parameter, so that a batch is one
 * statement per thousand rows rather than one per row, and one parameter
 * rather than fifteen a row. The minute blocks (server/minutes/minute-store.ts)
 * and the hour rows (server/history/rollup-store.ts) are written this way.
 */

/** Columns written, with their PostgreSQL types (what `json_to_recordset` needs to read a row; SQLite reads each value with `json_extract`). */
export type Columns = Readonly<Record<string, string>>;

/** The columns' names, quoted, for `INSERT INTO … (columns)`. */
export const quoted = (columns: Columns) => Prisma.raw(Object.keys(columns).map((name) => `"${name}"`).join(", "));

/**
 * A SELECT of the rows, for `INSERT INTO … (columns) SELECT …`: the rows go
 * as one JSON parameter that the database unpacks, not as a bound parameter
 * per value. Prisma compiles every statement with its parameters in its
 * query compiler (WebAssembly) and the adapter maps and binds each one: 15
 * parameters a row made that most of a flush's CPU. Times are written as
 * the SQLite adapter writes a DateTime (`2026-11-30T10:00:00.000+00:00`),
 * so that a row meets the rows Prisma wrote (and the keys compare as text);
 * PostgreSQL reads them into `timestamp(3)`, the type of Prisma's DateTime.
 * `WHERE true`: SQLite's parser needs it before an upsert's ON CONFLICT.
 */
export function rowsSelect<T extends object>(rows: T[], columns: Columns): Prisma.Sql {
  const names = Object.keys(columns);
  // Bytes travel as hex: unhex() on SQLite (3.41+; better-sqlite3 12 bundles 3.5x), decode() on PostgreSQL.
  const json = JSON.stringify(
    rows.map((row) => names.map((name) => {
      const value = (row as Record<string, unknown>)[name];
      if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex");
      return value instanceof Date ? value.toISOString().replace("Z", "+00:00") : value;
    })),
  );
  if (sqlDialect() === "postgresql") {
    const picks = names.map((name, i) => (columns[name] === "bytea" ? `decode(r.value->>${i}, 'hex')` : `(r.value->>${i})::${columns[name]}`)).join(", ");
    return Prisma.sql`SELECT ${Prisma.raw(picks)} FROM json_array_elements(${json}::json) AS r WHERE true`;
  }
  const picks = names.map((name, i) => (columns[name] === "bytea" ? `unhex(json_extract(r.value, '$[${i}]'))` : `json_extract(r.value, '$[${i}]')`)).join(", ");
  return Prisma.sql`SELECT ${Prisma.raw(picks)} FROM json_each(${json}) AS r WHERE true`;
}
