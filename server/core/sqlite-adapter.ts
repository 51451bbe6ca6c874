import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import type { IsolationLevel, SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, SqlResultSet, Transaction } from "@prisma/driver-adapter-utils";
import type Database from "better-sqlite3";

/**
 * How long SQLite itself waits, synchronously, for another process's write
 * lock before a statement fails with SQLITE_BUSY. better-sqlite3 runs on the
 * event loop: every millisecond here is a millisecond nothing else in the
 * server runs, so it stays short and the real waiting happens between
 * attempts (`BUSY_DEADLINE_MS`), with the event loop free.
 */
const SYNC_BUSY_TIMEOUT_MS = 20;

/** How long a statement keeps trying for the write lock before the caller gets "database busy". */
export const BUSY_DEADLINE_MS = 5_000;

/**
 * How long a transaction's `BEGIN IMMEDIATE` keeps trying: a little less
 * than the booking transaction lets a transaction wait to start (its
 * `maxWait` of 15 s, server/bookings/store/booking-transaction.ts), so that its caller
 * still gets "database busy" rather than Prisma's own time-out. (A
 * transaction with Prisma's default `maxWait`, 2 s, ends its wait sooner
 * whatever this says.) A burst of bookings from several
 * processes queues at this point, and on a loaded machine the last of 24
 * racers across 4 processes waited past 5 s and was answered "database
 * busy" instead of seeing the winner's booking.
 */
export const TRANSACTION_START_DEADLINE_MS = 12_000;

const RETRY_PAUSE_MS = [10, 25, 50, 100, 200] as const;

const statement = (sql: string): SqlQuery => ({ sql, args: [], argTypes: [] });

/** The driver's SQLITE_BUSY, as the better-sqlite3 adapter wraps it (a DriverAdapterError whose cause is SocketTimeout). */
function isBusy(error: unknown): boolean {
  const cause = (error as { cause?: { kind?: string; originalCode?: string } } | null)?.cause;
  return cause?.originalCode?.startsWith("SQLITE_BUSY") === true || cause?.kind === "SocketTimeout";
}

/**
 * A FIFO lock over the one connection: a statement outside a transaction
 * waits while a transaction is open, instead of running inside it (where a
 * rollback would undo a write that was already acknowledged, and a commit
 * that never came would leave it unsaved).
 */
class ConnectionLock {
  #tail: Promise<void> = Promise.resolve();

  async acquire(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const before = this.#tail;
    this.#tail = before.then(() => held);
    await before;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
    };
  }
}

/**
 * Runs `attempt` under the lock, again and again while SQLite answers BUSY
 * (another process holds the write lock), releasing the lock and the event
 * loop between attempts; after `deadlineMs` the last BUSY error goes
 * to the caller (Prisma's P1008, answered 503 `database_busy`).
 */
async function withBusyRetry<T>(lock: ConnectionLock, attempt: (release: () => void) => Promise<T>, keepLock = false, deadlineMs = BUSY_DEADLINE_MS): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (let round = 0; ; round += 1) {
    const release = await lock.acquire();
    try {
      const value = await attempt(release);
      if (!keepLock) release();
      return value;
    } catch (error) {
      release();
      if (!isBusy(error) || Date.now() >= deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS[Math.min(round, RETRY_PAUSE_MS.length - 1)]));
  }
}

/**
 * One transaction on the shared connection: it holds the connection's lock
 * from its `BEGIN IMMEDIATE` until it ends, and it ends whole. Prisma sends
 * COMMIT and ROLLBACK as statements and only then calls commit()/rollback();
 * when the COMMIT statement fails it calls neither, and the stock adapter
 * then keeps the connection inside a transaction forever (every later write
 * joins it, none is ever saved) and its lock taken (no transaction starts
 * again). Here a COMMIT that fails rolls back and frees the connection.
 */
class SqliteTransaction implements Transaction {
  readonly provider = "sqlite" as const;
  readonly adapterName: string;
  readonly options = { usePhantomQuery: false };
  #closed = false;

  constructor(
    private readonly inner: SqlDriverAdapter,
    private readonly client: Database.Database,
    private readonly release: () => void,
  ) {
    this.adapterName = inner.adapterName;
  }

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    this.#assertOpen();
    return this.inner.queryRaw(query);
  }

  async executeRaw(query: SqlQuery): Promise<number> {
    this.#assertOpen();
    const sql = query.sql.trim().toUpperCase();
    if (sql !== "COMMIT" && sql !== "ROLLBACK") return this.inner.executeRaw(query);
    try {
      return await this.inner.executeRaw(query);
    } catch (error) {
      this.#end();
      throw error;
    }
  }

  commit(): Promise<void> {
    this.#end();
    return Promise.resolve();
  }

  rollback(): Promise<void> {
    this.#end();
    return Promise.resolve();
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error("This SQLite transaction has already ended");
  }

  /** Leaves the connection outside any transaction, whatever happened, and lets the next statement run. */
  #end(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      if (this.client.inTransaction) this.client.exec("ROLLBACK");
    } finally {
      this.release();
    }
  }
}

/**
 * Prisma's better-sqlite3 adapter, made safe for a database that other
 * processes read and write too (a `sqlite3` shell, a report, `gpudesk backup`,
 * a CLI command): WAL mode, so that readers never block the server's writes;
 * a short synchronous busy timeout with the waiting done between attempts;
 * transactions that start with `BEGIN IMMEDIATE` (the write lock first, so no
 * statement inside one can meet "database is locked" halfway) and that
 * commit or roll back whole; and no statement of another request ever runs
 * inside someone's open transaction.
 */
export class SqliteAdapterFactory implements SqlDriverAdapterFactory {
  readonly provider = "sqlite" as const;
  readonly adapterName: string;
  readonly #inner: InstanceType<typeof PrismaBetterSQLite3>;

  constructor(file: string) {
    this.#inner = new PrismaBetterSQLite3({ url: file, timeout: SYNC_BUSY_TIMEOUT_MS });
    this.adapterName = this.#inner.adapterName;
  }

  async connect(): Promise<SqlDriverAdapter> {
    const inner = await this.#inner.connect();
    const client = (inner as unknown as { client: Database.Database }).client;
    // Persistent in the file: every later connection (a backup, a shell) finds it in WAL mode too.
    client.pragma("journal_mode = WAL");
    const lock = new ConnectionLock();
    const adapter: SqlDriverAdapter = {
      provider: "sqlite",
      adapterName: inner.adapterName,
      queryRaw: (query) => withBusyRetry(lock, () => inner.queryRaw(query)),
      executeRaw: (query) => withBusyRetry(lock, () => inner.executeRaw(query)),
      executeScript: (script) => withBusyRetry(lock, () => inner.executeScript(script)),
      startTransaction: async (isolationLevel?: IsolationLevel) => {
        if (isolationLevel && isolationLevel !== "SERIALIZABLE") {
          // What the stock adapter answers: SQLite's transactions are serializable, nothing else.
          return inner.startTransaction(isolationLevel);
        }
        return withBusyRetry(
          lock,
          async (release) => {
            await inner.executeRaw(statement("BEGIN IMMEDIATE"));
            return new SqliteTransaction(inner, client, release);
          },
          true,
          TRANSACTION_START_DEADLINE_MS,
        );
      },
      getConnectionInfo: inner.getConnectionInfo?.bind(inner),
      dispose: () => inner.dispose(),
    };
    return adapter;
  }
}
