import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "@/server/core/paths";
import { resolveSqlitePath } from "@/server/core/sqlite-path";
import { testDatabaseProvider, useTestDatabase } from "@/server/testing/test-db";

/*
 * Issue 22, item 1: the server's SQLite file under other programs. A real
 * server process (server/testing/write-server.ts: the token and booking
 * routes on the production database client) writes while a second process
 * holds a read transaction (a `sqlite3` shell, a report, `gpudesk backup`),
 * then while a third holds the write lock; then the server is killed with
 * SIGKILL. Every write it acknowledged must be in the file.
 */

const children: ChildProcess[] = [];
let databaseUrl = "";
let bearer = "";
let hostName = "";

interface Child {
  child: ChildProcess;
  /** The next line the child prints (stdout). */
  line: () => Promise<string>;
}

function start(args: string[]): Child {
  const child = spawn(process.execPath, args, { cwd: repoRoot, env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ["pipe", "pipe", "inherit"] });
  children.push(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return {
    child,
    line: async () => {
      const next = await lines.next();
      if (next.done) throw new Error(`${args.join(" ")} ended early (its error is above)`);
      return next.value as string;
    },
  };
}

// tsx as a loader inside the one process: its CLI would run the server in a child of its own, which kill -9 of the CLI leaves running.
const tsxLoader = ["--import", "tsx"];
const takeLock = (mode: "read" | "write") => start([path.join(repoRoot, "server", "testing", "sqlite-lock.mjs"), mode, resolveSqlitePath(databaseUrl)]);

type Answer = { status: number; id?: string; code?: string };

/** One request; a hang fails the test (the deadline only bounds a stuck server, it measures nothing). */
async function call(url: string, method: "GET" | "POST", body?: unknown): Promise<Answer> {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const json = (await response.json()) as { id?: string; error?: { code: string } };
  return { status: response.status, id: json.id, code: json.error?.code };
}

let hour = 0;
const firstHour = Math.ceil(Date.now() / 3600_000) * 3600_000 + 3600_000;
function writes(base: string, count: number): Promise<Answer>[] {
  return Array.from({ length: count }, (_, i) => {
    if (i % 2 === 0) return call(`${base}/api/v1/tokens`, "POST", { label: `contention ${i}` });
    // Each booking in an hour of its own: none is in another's way.
    hour += 1;
    const startsAt = new Date(firstHour + hour * 3600_000).toISOString();
    return call(`${base}/api/v1/reservations`, "POST", { host: hostName, gpus: [0], startsAt, durationMinutes: 30, purpose: "contention" });
  });
}

describe.skipIf(testDatabaseProvider() !== "sqlite")("SQLite with other programs on the file", () => {
  beforeAll(async () => {
    databaseUrl = await useTestDatabase();
    const { createUser } = await import("@/server/auth/users");
    const { createPersonalToken } = await import("@/server/auth/tokens");
    const { createTestHost } = await import("@/server/testing/booking-fixtures");
    const user = await createUser({ username: "contention", password: "contention-password" });
    bearer = (await createPersonalToken(user.id, "contention")).token;
    hostName = (await createTestHost(1, "contention")).name;
    const { disconnectDb } = await import("@/server/core/db");
    await disconnectDb();
  }, 120_000);

  afterAll(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });

  it("keeps answering under a reader and a writer, says 503 database_busy instead of hanging, and stores every write it acknowledged through kill -9", async () => {
    const server = start([...tsxLoader, path.join(repoRoot, "server", "testing", "write-server.ts")]);
    const base = (await server.line()).replace(/^listening /, "");
    // The process that answers is the one the test kills.
    expect(Number(/pid (\d+)/.exec(await server.line())?.[1])).toBe(server.child.pid);
    const acknowledged: string[] = [];
    const note = (answers: Answer[]) => {
      for (const answer of answers) if (answer.status === 201 && answer.id) acknowledged.push(answer.id);
      return answers;
    };
    expect((await call(`${base}/api/v1/me`, "GET")).status).toBe(200);

    // A read transaction held by another process: writes go on (WAL), all of them.
    const reader = takeLock("read");
    expect(await reader.line()).toBe("holding");
    const underReader = note(await Promise.all(writes(base, 16)));
    expect(underReader.map((answer) => answer.status)).toEqual(Array(16).fill(201));

    // The write lock held by another process: reads still answer at once, writes answer 503 database_busy.
    const locker = takeLock("write");
    expect(await locker.line()).toBe("holding");
    const blocked = writes(base, 6);
    const meanwhile = await call(`${base}/api/v1/me`, "GET");
    expect(meanwhile.status).toBe(200);
    const underLock = note(await Promise.all(blocked));
    expect(underLock.map((answer) => [answer.status, answer.code])).toEqual(Array(6).fill([503, "database_busy"]));
    locker.child.stdin!.write("go\n");
    expect(await locker.line()).toBe("released");

    // Free again: the connection is not stuck in a half-done transaction; writes answer and last.
    const after = note(await Promise.all(writes(base, 16)));
    expect(after.map((answer) => answer.status)).toEqual(Array(16).fill(201));

    // More in flight, then the server dies mid-burst.
    const inFlight = writes(base, 20).map((answer) => answer.then((value) => note([value])[0], () => null));
    await inFlight[0];
    server.child.kill("SIGKILL");
    await Promise.all(inFlight);
    await new Promise<void>((resolve) => (server.child.exitCode !== null || server.child.signalCode !== null ? resolve() : server.child.once("exit", () => resolve())));
    reader.child.stdin!.write("go\n");
    expect(await reader.line()).toBe("released");

    // Acknowledged means stored.
    const file = new Database(resolveSqlitePath(databaseUrl), { readonly: true });
    try {
      const ids = new Set<string>([
        ...(file.prepare('SELECT "id" FROM "ApiToken"').all() as { id: string }[]).map((row) => row.id),
        ...(file.prepare('SELECT "id" FROM "Reservation"').all() as { id: string }[]).map((row) => row.id),
      ]);
      expect(acknowledged.length).toBeGreaterThanOrEqual(32);
      expect(acknowledged.filter((id) => !ids.has(id))).toEqual([]);
      expect(file.pragma("journal_mode", { simple: true })).toBe("wal");
    } finally {
      file.close();
    }
  }, 240_000);
});
