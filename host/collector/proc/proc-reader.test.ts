import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { snapshotSchema, type ProcessInfo, type Snapshot } from "@/lib/domain/snapshot";
import { createFakeProcTree, statText, type FakeProcTree, type FakeProcess } from "@/host/collector/proc/fake-proc-tree";
import { createUserLookup } from "@/host/collector/proc/lookup-user";
import { createProcReader, enrichProcesses, type Ownership, type ProcReader } from "@/host/collector/proc/proc-reader";

const BTIME = 1_700_000_000; // 2023-11-14T22:13:20Z
const ID = "3f4e5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7080";
const POD = "8f1c2d3e-4a5b-6c7d-8e9f-0a1b2c3d4e5f";

const trees: FakeProcTree[] = [];
afterEach(async () => {
  await Promise.all(trees.splice(0).map((t) => t.cleanup()));
});

async function setup(processes: FakeProcess[], clockTicksPerSecond?: number) {
  const tree = await createFakeProcTree({ btime: BTIME, processes });
  trees.push(tree);
  const reader = createProcReader({
    procRoot: tree.procRoot,
    lookupUser: createUserLookup({ passwdPath: tree.passwdPath, getent: false }),
    clockTicksPerSecond,
  });
  return { tree, reader };
}

describe("readOwnership", () => {
  it("resolves owners through the passwd file, and unknown uids to their number", async () => {
    const { reader } = await setup([
      { pid: 100, uid: 1000 },
      { pid: 101, uid: 1001 },
      { pid: 102, uid: 0 },
      { pid: 103, uid: 4242 },
    ]);
    const users = await Promise.all([100, 101, 102, 103].map(async (pid) => (await reader.readOwnership(pid))?.user));
    expect(users).toEqual(["alice", "bob", "root", "4242"]);
  });

  it("reads a full process: command, start time, container, job and booking", async () => {
    const { reader } = await setup([
      {
        pid: 200,
        uid: 1000,
        argv: ["python3", "-m", "torch.distributed.run", "train.py"],
        startTicks: 12_345,
        cgroup: "0::/system.slice/slurmstepd.scope/job_4711/step_0/user/task_0\n",
        environ: ["PATH=/usr/bin", "GPUDESK_RESERVATION=res_abc123", "SLURM_JOB_ID=4711"],
      },
    ]);
    expect(await reader.readOwnership(200)).toEqual<Ownership>({
      uid: 1000,
      user: "alice",
      command: "python3 -m torch.distributed.run train.py",
      startedAt: "2023-11-14T22:15:23.450Z",
      container: null,
      slurmJobId: "4711",
      reservationId: "res_abc123",
    });
  });

  it("shows the uid when the lookup fails, and refuses a nonsensical tick rate", async () => {
    const tree = await createFakeProcTree({ btime: BTIME, processes: [{ pid: 150, uid: 1000 }] });
    trees.push(tree);
    const reader = createProcReader({
      procRoot: tree.procRoot,
      lookupUser: () => {
        throw new Error("nss is down");
      },
    });
    expect((await reader.readOwnership(150))?.user).toBe("1000");
    expect(() => createProcReader({ procRoot: tree.procRoot, clockTicksPerSecond: 0 })).toThrow(RangeError);
  });

  it("computes the start time from btime and the clock tick rate", async () => {
    const { reader } = await setup([{ pid: 300, startTicks: 250 * 3600 }], 250);
    expect((await reader.readOwnership(300))?.startedAt).toBe("2023-11-14T23:13:20.000Z");
  });

  it("keeps a comm with spaces and parentheses whole and falls back to it for empty argv", async () => {
    const { reader } = await setup([{ pid: 400, comm: "my (odd) name) x", argv: [], startTicks: 100 }]);
    const own = await reader.readOwnership(400);
    expect(own?.command).toBe("[my (odd) name) x]");
    expect(own?.startedAt).toBe("2023-11-14T22:13:21.000Z");
  });

  it("uses comm when stat is unreadable and argv is empty", async () => {
    const { reader } = await setup([{ pid: 410, comm: "kworker/3:1", argv: [], raw: { stat: "garbage" } }]);
    const own = await reader.readOwnership(410);
    expect(own?.command).toBe("[kworker/3:1]");
    expect(own?.startedAt).toBeNull();
  });

  it.each([
    ["Docker v1", `12:memory:/docker/${ID}\n1:name=systemd:/docker/${ID}\n`, ID.slice(0, 12)],
    ["Docker v2 systemd", `0::/system.slice/docker-${ID}.scope\n`, ID.slice(0, 12)],
    ["Kubernetes cgroupfs v1", `11:memory:/kubepods/burstable/pod${POD}/${ID}\n`, `pod:${POD}`],
    [
      "Kubernetes systemd v2",
      `0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${POD.replaceAll("-", "_")}.slice/cri-containerd-${ID}.scope\n`,
      `pod:${POD}`,
    ],
    ["Podman", `0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-${ID}.scope\n`, ID.slice(0, 12)],
    ["user session", "0::/user.slice/user-1000.slice/session-2.scope\n", null],
  ])("reads the container from the cgroup: %s", async (_name, cgroup, expected) => {
    const { reader } = await setup([{ pid: 500, cgroup }]);
    expect((await reader.readOwnership(500))?.container).toBe(expected);
  });

  it("reads the Slurm job from a v1 cgroup", async () => {
    const { reader } = await setup([{ pid: 510, cgroup: "4:memory:/slurm/uid_1000/job_12345/step_0/task_0\n" }]);
    expect((await reader.readOwnership(510))?.slurmJobId).toBe("12345");
  });

  it("returns null for a process whose directory does not exist", async () => {
    const { reader } = await setup([{ pid: 600 }]);
    expect(await reader.readOwnership(601)).toBeNull();
  });

  it("returns null when the process vanishes between files", async () => {
    const { reader } = await setup([{ pid: 610, omit: ["cmdline"] }]);
    expect(await reader.readOwnership(610)).toBeNull();
  });

  it("refuses pids that are not positive integers", async () => {
    const { reader } = await setup([]);
    for (const pid of [0, -1, 1.5, Number.NaN]) expect(await reader.readOwnership(pid)).toBeNull();
  });

  it("nulls only the field whose file fails with another error", async () => {
    const { tree, reader } = await setup([{ pid: 700, environ: ["GPUDESK_RESERVATION=res_x"] }]);
    // A directory where a file should be: EISDIR, an error that is neither
    // "vanished" nor specific to environ.
    await rm(path.join(tree.pidDir(700), "environ"));
    await mkdir(path.join(tree.pidDir(700), "environ"));
    const own = await reader.readOwnership(700);
    expect(own).not.toBeNull();
    expect(own?.reservationId).toBeNull();
    expect(own?.user).toBe("alice");
    expect(own?.command).toBe("python3 train.py");
  });

  it.skipIf(process.getuid?.() === 0 || process.platform === "win32")(
    "treats an unreadable environ (EACCES) as no booking",
    async () => {
      const { tree, reader } = await setup([{ pid: 710, environ: ["GPUDESK_RESERVATION=res_x"] }]);
      await chmod(path.join(tree.pidDir(710), "environ"), 0o000);
      const own = await reader.readOwnership(710);
      expect(own?.reservationId).toBeNull();
      expect(own?.user).toBe("alice");
    },
  );

  it("drops booking values that are too long or unsafe", async () => {
    const { reader } = await setup([
      { pid: 720, environ: [`GPUDESK_RESERVATION=${"r".repeat(129)}`] },
      { pid: 721, environ: ["GPUDESK_RESERVATION=res x;y"] },
    ]);
    expect((await reader.readOwnership(720))?.reservationId).toBeNull();
    expect((await reader.readOwnership(721))?.reservationId).toBeNull();
  });

  it("reads the captured H200 CUDA process", async () => {
    const fixture = await readFile(
      path.join(import.meta.dirname, "../fixtures/h200-driver-580/proc-of-cuda-process.txt"),
      "utf8",
    );
    const section = (name: string) => fixture.split(`## ${name}\n`)[1].split("\n## ")[0];
    const { reader } = await setup([
      {
        pid: 691,
        raw: {
          cgroup: section("cgroup"),
          stat: section("stat"),
          status: section("status"),
          environ: `${section("environ has GPUDESK_RESERVATION:").trim()}\0`,
          cmdline: "",
        },
      },
    ]);
    expect(await reader.readOwnership(691)).toEqual<Ownership>({
      uid: 0,
      user: "root",
      command: "[gpudesk-hog]",
      startedAt: "2023-11-14T22:14:28.170Z", // btime + 6817 ticks / 100
      // A sandbox's own cgroup, not a container runtime we know.
      container: null,
      slurmJobId: null,
      reservationId: "res_capture",
    });
  });

  it.skipIf(process.platform !== "linux")("reads this machine's /proc for its own pid", async () => {
    const reader = createProcReader();
    const own = await reader.readOwnership(process.pid);
    expect(own?.user).toBeTruthy();
    expect(own?.command).toBeTruthy();
    const started = Date.parse(own?.startedAt ?? "");
    // Clock-tick rounding and NTP can put it a little in the "future".
    expect(started).toBeLessThanOrEqual(Date.now() + 5_000);
    expect(started).toBeGreaterThan(Date.now() - 7 * 24 * 3600 * 1000);
  });
});

function processInfo(pid: number, gpuUuid: string, extra: Partial<ProcessInfo> = {}): ProcessInfo {
  return {
    gpuUuid,
    pid,
    name: "python3",
    usedMemoryMiB: 1024,
    user: null,
    command: null,
    startedAt: null,
    container: null,
    slurmJobId: null,
    reservationId: null,
    ...extra,
  };
}

function snapshotOf(processes: ProcessInfo[]): Snapshot {
  return {
    host: { name: "h200-01", driverVersion: "580.65.06", cudaVersion: "13.0" },
    gpus: [],
    processes,
    sampledAt: "2025-01-01T00:00:00.000Z",
  };
}

describe("enrichProcesses", () => {
  it("fills every process, keeps vanished ones with null ownership, and stays valid", async () => {
    const { reader } = await setup([
      { pid: 800, uid: 1000, cgroup: `0::/docker/${ID}\n`, environ: ["GPUDESK_RESERVATION=res_1"] },
      { pid: 801, uid: 1001, argv: ["./bench", "--gpus", "0,1"] },
    ]);
    const input = snapshotOf([
      processInfo(800, "GPU-a"),
      processInfo(801, "GPU-a"),
      processInfo(801, "GPU-b"),
      processInfo(899, "GPU-b"),
    ]);
    const out = await enrichProcesses(input, reader);

    expect(snapshotSchema.parse(out)).toEqual(out);
    expect(out.processes.map((p) => [p.pid, p.gpuUuid, p.user, p.command])).toEqual([
      [800, "GPU-a", "alice", "python3 train.py"],
      [801, "GPU-a", "bob", "./bench --gpus 0,1"],
      [801, "GPU-b", "bob", "./bench --gpus 0,1"],
      [899, "GPU-b", null, null],
    ]);
    expect(out.processes[0]).toMatchObject({ container: ID.slice(0, 12), reservationId: "res_1" });
    expect(input.processes[0].user).toBeNull();
  });

  it("reads each pid once and never more than `concurrency` at a time", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const calls: number[] = [];
    const reader: ProcReader = {
      async readOwnership(pid) {
        calls.push(pid);
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        if (pid === 13) throw new Error("a reader bug must not lose the snapshot");
        return { uid: 1000 + pid, user: `u${pid}`, command: null, startedAt: null, container: null, slurmJobId: null, reservationId: null };
      },
    };
    const processes = Array.from({ length: 40 }, (_, i) => processInfo(i % 20, `GPU-${i % 2}`));
    const out = await enrichProcesses(snapshotOf(processes), reader, { concurrency: 4 });

    expect([...calls].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(maxInFlight).toBe(4);
    expect(out.processes.find((p) => p.pid === 13)?.user).toBeNull();
    expect(out.processes.find((p) => p.pid === 7)?.user).toBe("u7");
  });

  it("keeps what the source already knew where /proc has no answer", async () => {
    const { reader } = await setup([]);
    const out = await enrichProcesses(snapshotOf([processInfo(900, "GPU-a", { user: "from-source" })]), reader);
    expect(out.processes[0].user).toBe("from-source");
  });
});

describe("readOwnership with reuseMs (the collector's once-a-second reads)", () => {
  async function reusing(processes: FakeProcess[]) {
    const tree = await createFakeProcTree({ btime: BTIME, processes });
    trees.push(tree);
    let clock = 1_000_000;
    const reader = createProcReader({
      procRoot: tree.procRoot,
      lookupUser: createUserLookup({ passwdPath: tree.passwdPath, getent: false }),
      reuseMs: 30_000,
      now: () => clock,
    });
    const write = (pid: number, file: string, text: string) => writeFile(path.join(tree.procRoot, String(pid), file), text);
    return { reader, write, advance: (ms: number) => (clock += ms) };
  }

  it("keeps what it read of a process while its start time is the same, and reads it all again after reuseMs", async () => {
    const { reader, write, advance } = await reusing([{ pid: 300, uid: 1000, argv: ["python", "train.py"], startTicks: 7000 }]);
    expect((await reader.readOwnership(300))?.command).toBe("python train.py");
    await write(300, "cmdline", "python\0renamed.py\0");
    advance(29_000);
    expect((await reader.readOwnership(300))?.command).toBe("python train.py");
    advance(1_000);
    expect((await reader.readOwnership(300))?.command).toBe("python renamed.py");
  });

  it("reads a reused pid (another start time) afresh at once, and a process that exited is gone at once", async () => {
    const { reader, write, advance } = await reusing([{ pid: 301, uid: 1000, argv: ["python", "a.py"], startTicks: 7000 }]);
    expect((await reader.readOwnership(301))?.user).toBe("alice");
    await write(301, "status", "Name:\tpython\nUid:\t1001\t1001\t1001\t1001\n");
    await write(301, "cmdline", "python\0b.py\0");
    await write(301, "stat", statText(301, "python", 9000));
    advance(1_000);
    const other = await reader.readOwnership(301);
    expect(other).toMatchObject({ user: "bob", command: "python b.py" });
  });

  it("answers null for a pid that vanished even though it was remembered", async () => {
    const tree = await createFakeProcTree({ btime: BTIME, processes: [{ pid: 302, uid: 1000, argv: ["x"] }] });
    trees.push(tree);
    const reader = createProcReader({ procRoot: tree.procRoot, lookupUser: createUserLookup({ passwdPath: tree.passwdPath, getent: false }), reuseMs: 30_000 });
    expect(await reader.readOwnership(302)).not.toBeNull();
    await rm(path.join(tree.procRoot, "302"), { recursive: true, force: true });
    expect(await reader.readOwnership(302)).toBeNull();
  });
});
