import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createFakeProcTree, type FakeProcTree } from "@/host/collector/proc/fake-proc-tree";
import { createUserLookup } from "@/host/collector/proc/lookup-user";
import { createProcReader } from "@/host/collector/proc/proc-reader";

// Root bypasses file modes, so a chmod'ed environ is still readable when the
// tests run as root (CI containers). Here `open` itself answers EACCES for
// files named in `denied`, exactly as the kernel does for another user's
// environ when the agent is not root.
const denied = new Set<string>();
vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  return {
    ...actual,
    openSync: (file: string, ...rest: unknown[]) => {
      if (denied.has(file)) throw Object.assign(new Error(`EACCES: permission denied, open '${file}'`), { code: "EACCES" });
      return (actual.openSync as (...args: unknown[]) => unknown)(file, ...rest);
    },
  };
});

let tree: FakeProcTree | undefined;
afterEach(async () => {
  denied.clear();
  await tree?.cleanup();
});

describe("readOwnership with an unreadable environ", () => {
  it("keeps every other field and silently has no booking", async () => {
    tree = await createFakeProcTree({
      btime: 1_700_000_000,
      processes: [{ pid: 4321, uid: 1001, environ: ["GPUDESK_RESERVATION=res_hidden"] }],
    });
    denied.add(path.join(tree.pidDir(4321), "environ"));
    const reader = createProcReader({
      procRoot: tree.procRoot,
      lookupUser: createUserLookup({ passwdPath: tree.passwdPath, getent: false }),
    });
    const own = await reader.readOwnership(4321);
    expect(own).toMatchObject({ user: "bob", command: "python3 train.py", reservationId: null });
  });

  it("still reads it once permission is granted", async () => {
    tree = await createFakeProcTree({
      btime: 1_700_000_000,
      processes: [{ pid: 4322, environ: ["GPUDESK_RESERVATION=res_visible"] }],
    });
    const reader = createProcReader({
      procRoot: tree.procRoot,
      lookupUser: createUserLookup({ passwdPath: tree.passwdPath, getent: false }),
    });
    expect((await reader.readOwnership(4322))?.reservationId).toBe("res_visible");
  });
});
