// Counts the SQL statements a process prepares: every Prisma query on SQLite goes through
// better-sqlite3's `prepare` (the adapter prepares each statement anew), so wrapping it in
// place counts the process's own Prisma client, by statement text. Used by the server probe
// (queries per second in steady state) and by the rollup flush benchmark (queries per flush).
import { createRequire } from "node:module";

/** Starts counting; returns the live counts by statement text (the first 120 characters, spaces folded). */
export function countSqlStatements() {
  const counts = new Map();
  try {
    const Database = createRequire(`${process.cwd()}/package.json`)("better-sqlite3");
    const prepare = Database.prototype.prepare;
    Database.prototype.prepare = function countedPrepare(sql) {
      const key = String(sql).replace(/\s+/g, " ").slice(0, 120);
      counts.set(key, (counts.get(key) ?? 0) + 1);
      return prepare.call(this, sql);
    };
  } catch {
    // No better-sqlite3 here: nothing to count.
  }
  return counts;
}

/** The total and the most frequent statements of a count. */
export function summarizeSqlCounts(counts, top = 15) {
  return {
    total: [...counts.values()].reduce((a, b) => a + b, 0),
    top: [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, top),
  };
}
