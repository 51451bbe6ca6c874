// A second program on the server's SQLite file, as a `sqlite3` shell or a report would be:
// `read` holds a read transaction, `write` holds the write lock (BEGIN IMMEDIATE). Prints
// "holding" once it holds it, lets go when a line arrives on stdin, prints "released".
//   node server/testing/sqlite-lock.mjs read|write /path/to/file.db
import { createInterface } from "node:readline";
import Database from "better-sqlite3";

const [mode, file] = process.argv.slice(2);
const db = new Database(file, { timeout: 10_000 });
db.exec(mode === "write" ? "BEGIN IMMEDIATE" : "BEGIN");
// A read transaction starts at its first read.
db.prepare('SELECT count(*) FROM "ApiToken"').get();
process.stdout.write("holding\n");
createInterface({ input: process.stdin }).once("line", () => {
  db.exec("ROLLBACK");
  db.close();
  process.stdout.write("released\n");
  process.exit(0);
});
