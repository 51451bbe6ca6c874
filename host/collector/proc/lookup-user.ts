import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";

/** Resolves a uid to a login name; null when the host does not know the uid. */
export type LookupUser = (uid: number) => Promise<string | null>;

export interface UserLookupOptions {
  /** Fallback database, read when getent is unavailable or finds nothing. */
  passwdPath?: string;
  /**
   * Asks the host's NSS (`getent passwd UID`), which also covers LDAP, NIS
   * and sssd accounts that /etc/passwd never lists on cluster nodes. `false`
   * skips it (tests, hosts without getent); a function replaces it.
   */
  getent?: LookupUser | false;
  /** How long a found name is trusted; renames are rare. */
  ttlMs?: number;
  /** How long "unknown uid" is trusted; short, since accounts get created. */
  missTtlMs?: number;
  now?: () => number;
}

const MAX_LOGIN_LENGTH = 256;
const GETENT_TIMEOUT_MS = 2_000;
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

interface CacheEntry {
  expiresAt: number;
  name: Promise<string | null>;
}

/**
 * A cached uid → login lookup. Concurrent lookups of one uid share one
 * getent run, so a snapshot of 64 processes of one user costs one fork.
 * Never rejects: a broken NSS only means the caller shows the uid.
 */
export function createUserLookup(options: UserLookupOptions = {}): LookupUser {
  const {
    passwdPath = "/etc/passwd",
    getent = runGetent,
    ttlMs = 5 * 60_000,
    missTtlMs = 30_000,
    now = Date.now,
  } = options;
  const cache = new Map<number, CacheEntry>();

  async function resolve(uid: number): Promise<string | null> {
    if (getent !== false) {
      const name = await getent(uid).catch(() => null);
      if (name !== null) return name;
    }
    return lookupPasswdFile(passwdPath, uid);
  }

  return (uid) => {
    const cached = cache.get(uid);
    if (cached && cached.expiresAt > now()) return cached.name;
    const entry: CacheEntry = { expiresAt: Number.POSITIVE_INFINITY, name: resolve(uid) };
    cache.set(uid, entry);
    // The expiry starts once the answer is known, and depends on it.
    void entry.name.then((name) => {
      entry.expiresAt = now() + (name === null ? missTtlMs : ttlMs);
    });
    return entry.name;
  };
}

/** Runs `getent passwd UID`; null on "not found", a timeout or a missing binary. */
export function runGetent(uid: number): Promise<string | null> {
  return new Promise((resolvePromise) => {
    execFile(
      "getent",
      ["passwd", String(uid)],
      { timeout: GETENT_TIMEOUT_MS, maxBuffer: 64 * 1024, windowsHide: true },
      (error, stdout) => {
        if (error) return resolvePromise(null);
        resolvePromise(loginFromPasswdLines(stdout, uid));
      },
    );
  });
}

/** Reads a passwd-format file; null when it is unreadable or lacks the uid. */
export async function lookupPasswdFile(path: string, uid: number): Promise<string | null> {
  try {
    return loginFromPasswdLines(await readFile(path, "utf8"), uid);
  } catch {
    return null;
  }
}

/**
 * The login of the first `name:password:uid:...` line with this uid. NIS
 * compat lines (`+`, `-`) and comments are skipped: they are not accounts.
 */
export function loginFromPasswdLines(text: string, uid: number): string | null {
  for (const line of text.split("\n")) {
    if (line.startsWith("#") || line.startsWith("+") || line.startsWith("-")) continue;
    const fields = line.split(":");
    if (fields.length < 3 || fields[2] !== String(uid)) continue;
    const name = fields[0].trim();
    if (name === "" || name.length > MAX_LOGIN_LENGTH || CONTROL_CHARS.test(name)) continue;
    return name;
  }
  return null;
}
