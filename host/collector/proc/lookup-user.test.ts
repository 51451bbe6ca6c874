import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_PASSWD } from "@/host/collector/proc/fake-proc-tree";
import {
  createUserLookup,
  loginFromPasswdLines,
  lookupPasswdFile,
  runGetent,
} from "@/host/collector/proc/lookup-user";

let dir: string;
let passwdPath: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "gpudesk-passwd-"));
  passwdPath = path.join(dir, "passwd");
  await writeFile(passwdPath, DEFAULT_PASSWD);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A getent stand-in that counts its calls and knows only `known`. */
function countingGetent(known: Record<number, string>) {
  const calls: number[] = [];
  const getent = async (uid: number) => {
    calls.push(uid);
    return known[uid] ?? null;
  };
  return { calls, getent };
}

describe("loginFromPasswdLines", () => {
  it("finds the login by uid and skips comments and NIS compat lines", () => {
    expect(loginFromPasswdLines(DEFAULT_PASSWD, 1001)).toBe("bob");
    expect(loginFromPasswdLines(DEFAULT_PASSWD, 0)).toBe("root");
    expect(loginFromPasswdLines(DEFAULT_PASSWD, 4242)).toBeNull();
    expect(loginFromPasswdLines("+::1000::::\nalice:x:1000:1000::/:/bin/sh\n", 1000)).toBe("alice");
  });

  it("is null for an unreadable file", async () => {
    expect(await lookupPasswdFile(path.join(dir, "missing"), 0)).toBeNull();
  });
});

describe("createUserLookup", () => {
  it("prefers getent (LDAP/sssd users) and falls back to the passwd file", async () => {
    const { calls, getent } = countingGetent({ 5000: "ldapuser" });
    const lookup = createUserLookup({ passwdPath, getent });
    expect(await lookup(5000)).toBe("ldapuser");
    expect(await lookup(1000)).toBe("alice");
    expect(await lookup(4242)).toBeNull();
    expect(calls).toEqual([5000, 1000, 4242]);
  });

  it("falls back to the file when getent fails", async () => {
    const lookup = createUserLookup({
      passwdPath,
      getent: () => Promise.reject(new Error("spawn getent ENOENT")),
    });
    expect(await lookup(1001)).toBe("bob");
  });

  it("caches per uid, shares concurrent lookups, and expires after the TTL", async () => {
    let now = 1_000;
    const { calls, getent } = countingGetent({ 1000: "alice" });
    const lookup = createUserLookup({ passwdPath, getent, ttlMs: 60_000, missTtlMs: 5_000, now: () => now });

    expect(await Promise.all([lookup(1000), lookup(1000), lookup(1000)])).toEqual(["alice", "alice", "alice"]);
    expect(calls).toEqual([1000]);

    now += 59_000;
    await lookup(1000);
    expect(calls).toEqual([1000]);

    now += 2_000;
    await lookup(1000);
    expect(calls).toEqual([1000, 1000]);
  });

  it("remembers unknown uids for the shorter miss TTL", async () => {
    let now = 0;
    const { calls, getent } = countingGetent({});
    const lookup = createUserLookup({ passwdPath, getent, ttlMs: 60_000, missTtlMs: 5_000, now: () => now });
    await lookup(4242);
    now += 4_000;
    await lookup(4242);
    expect(calls).toEqual([4242]);
    now += 2_000;
    await lookup(4242);
    expect(calls).toEqual([4242, 4242]);
  });

  it.skipIf(process.platform !== "linux" || !existsSync("/usr/bin/getent"))(
    "asks this host's real getent for uid 0",
    async () => {
      expect(await runGetent(0)).toBe("root");
      expect(await runGetent(2_147_000_000)).toBeNull();
    },
  );
});
