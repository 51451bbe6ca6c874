import { mkdtempSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadAuthSecret } from "@/server/auth/auth-secret";
import { migrateDatabase } from "@/server/core/migrate";
import { repoRoot } from "@/server/core/paths";

const permissions = (file: string) => statSync(file).mode & 0o777;

describe("files that hold secrets are created owner-only", () => {
  it("the SQLite database and its new folder", async () => {
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), "gpudesk-private-")), "data");
    const file = path.join(dir, "gpudesk.db");
    await migrateDatabase(`file:${file}`, repoRoot);
    expect(permissions(dir)).toBe(0o700);
    expect(permissions(file)).toBe(0o600);
  });

  it("the generated auth secret and its new folder", () => {
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), "gpudesk-private-")), "data");
    const secret = loadAuthSecret(undefined, dir);
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(permissions(dir)).toBe(0o700);
    expect(permissions(path.join(dir, "auth-secret"))).toBe(0o600);
    expect(loadAuthSecret(undefined, dir)).toBe(secret);
  });
});
