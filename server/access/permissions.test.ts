import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isTestFile, sourceFiles } from "@/scripts/import-graph";
import { answersFor, can } from "@/server/access/permissions";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** A decision by role: comparing a role with "admin" or "member", or the old helpers that did. */
const ROLE_CHECKS = [/\brole\s*[!=]==?\s*["'](admin|member)["']/, /["'](admin|member)["']\s*[!=]==?\s*[\w.?]*\brole\b/, /\bisAdmin(Actor)?\s*\(/, /\bcanManageReservation\s*\(/];

/**
 * In lib/ (the rules the browser and the server share) the role is never
 * read at all: a shared rule takes the answer of a `can.*` instead (as
 * canAcknowledgeAlert takes `can.acknowledgeEveryAlert`), so that it cannot
 * grant what permissions.ts does not. lib/domain/roles.ts defines the role.
 */
const LIB_ROLE_CHECKS = [/\bisAdminRole\s*\(/, /\.role\b(?!["'`])/];

/** Every line of server/, app/, components/ and lib/ (tests aside) that decides by the role outside server/access/. */
export function roleChecksOutsideAccess(files: string[], read: (file: string) => string): string[] {
  const found: string[] = [];
  for (const file of files) {
    if (isTestFile(file) || file.startsWith("server/access/") || file.startsWith("server/testing/") || file === "lib/domain/roles.ts") continue;
    const checks = file.startsWith("lib/") ? [...ROLE_CHECKS, ...LIB_ROLE_CHECKS] : ROLE_CHECKS;
    read(file)
      .split("\n")
      .forEach((line, at) => {
        if (checks.some((check) => check.test(line))) found.push(`${file}:${at + 1}: ${line.trim()}`);
      });
  }
  return found;
}

describe("permissions", () => {
  it("are asked of server/access/permissions.ts: no role check anywhere else in server/, app/, components/ or lib/", () => {
    const files = sourceFiles(root, ["server", "app", "components", "lib"]);
    expect(files.length).toBeGreaterThan(300);
    expect(roleChecksOutsideAccess(files, (file) => readFileSync(`${root}/${file}`, "utf8"))).toEqual([]);
  });

  it("the guard finds each way of checking the role, and lets the role's bookkeeping and tests pass", () => {
    const text: Record<string, string> = {
      "server/a.ts": 'if (actor.role !== "admin") throw x;',
      "server/b.ts": "const wide = isAdmin(principal);",
      "app/c.tsx": "{user.role === 'admin' && <Menu />}",
      "components/d.tsx": 'const member = "member" == me.role;',
      "server/e.ts": "if (!isAdminActor(actor)) throw x;",
      "server/access/f.ts": 'const admin = who.role === "admin";',
      "server/g.test.ts": 'expect(user.role === "admin").toBe(true);',
      "server/h.ts": 'const losesAdmin = isAdminRole(current.role) && patch.role === undefined;',
    };
    expect(roleChecksOutsideAccess(Object.keys(text), (file) => text[file]).map((line) => line.split(":")[0])).toEqual(["server/a.ts", "server/b.ts", "app/c.tsx", "components/d.tsx", "server/e.ts"]);
  });

  it("the guard finds a shared rule in lib/ that reads the role, and lets the role's own definition pass", () => {
    const text: Record<string, string> = {
      "lib/domain/a.ts": "  if (isAdminRole(viewer.role)) return true;",
      "lib/domain/b.ts": 'export const mayEdit = (who: { role: string }) => who.role !== "member";',
      "lib/live/c.ts": "const everything = viewer.role && viewer.id;",
      "lib/domain/roles.ts": 'export function isAdminRole(role: string | null | undefined): boolean {\n  return role === "admin";\n}',
      "lib/domain/d.ts": "if (viewer.acknowledgesEveryAlert) return true;",
      "lib/domain/e.ts": '  | "user.role"',
    };
    expect(roleChecksOutsideAccess(Object.keys(text), (file) => text[file]).map((line) => line.split(":")[0])).toEqual(["lib/domain/a.ts", "lib/domain/b.ts", "lib/live/c.ts"]);
  });

  it("answer as the matrix says: the booker their own booking, an admin everyone's and the fleet's settings", () => {
    const member = { id: "m", role: "member" };
    const admin = { id: "a", role: "admin" };
    expect([can.manageBooking(member, { userId: "m" }), can.manageBooking(member, { userId: "x" }), can.manageBooking(admin, { userId: "x" })]).toEqual([true, false, true]);
    expect([can.cancelBooking(member), can.cancelBooking(admin)]).toEqual([false, true]);
    expect([can.manageWebhook(member, { userId: null }), can.manageWebhook(member, { userId: "m" }), can.manageWebhook(admin, { userId: "m" }), can.manageWebhook(admin, { userId: null })]).toEqual([false, true, false, true]);
    expect([can.seeAlert(member, ["m"]), can.seeAlert(member, ["x"]), can.seeAlert(admin, [])]).toEqual([true, false, true]);
    expect(can.administerAs({ kind: "display", display: { id: "d", name: "wall", namesUnbookedRunner: false } })).toBe(false);
    expect(can.administerAs(null)).toBe(false);
    expect(answersFor(member)).toEqual({ administer: false, cancelBookings: false, removeOthersWaitlistEntries: false, seeAllBookings: false, seeAllAlerts: false, acknowledgeEveryAlert: false, seeAllUsage: false });
    expect(Object.values(answersFor(admin)).every(Boolean)).toBe(true);
  });
});
