import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import type { EnforcementReport, TerminateCommand } from "@/lib/domain/enforcement-protocol";
import type { Snapshot } from "@/lib/domain/snapshot";
import { createEnforcer } from "@/host/agent/enforcer";
import { createProcReader, type ProcReader } from "@/host/collector/proc/proc-reader";

/**
 * The agent's enforcer against real processes that the test starts and
 * the real /proc: what it terminates, what it refuses, and that nothing is
 * signalled without --allow-enforcement.
 */

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/**
 * Whose processes the test starts: the agent never signals root, so when the
 * tests run as root their processes run as nobody; otherwise as the runner,
 * with the system-user floor lowered to the runner's uid where it is below 1000.
 */
const runningAsRoot = process.getuid?.() === 0;
const as = runningAsRoot ? { uid: 65534, gid: 65534 } : {};
const login = runningAsRoot ? "nobody" : os.userInfo().username;
const minUid = runningAsRoot ? 1000 : Math.max(1, Math.min(1000, process.getuid?.() ?? 1000));

/** A node process that idles; `stubborn` ones ignore SIGTERM. */
function startProcess(options: { env?: Record<string, string>; stubborn?: boolean } = {}): ChildProcess {
  const script = `${options.stubborn ? "process.on('SIGTERM', () => {});" : ""} setInterval(() => {}, 1000); process.on('message', () => process.send?.('pong')); process.send?.('ready');`;
  const child = spawn(process.execPath, ["-e", script], { ...as, env: { ...process.env, ...options.env }, stdio: ["ignore", "ignore", "ignore", "ipc"] });
  children.push(child);
  return child;
}

async function ready(child: ChildProcess): Promise<void> {
  await new Promise<void>((resolve) => child.once("message", () => resolve()));
}

function exited(child: ChildProcess, withinMs: number): Promise<NodeJS.Signals | number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.signalCode ?? child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`pid ${child.pid} still runs after ${withinMs} ms`)), withinMs);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve(signal ?? code);
    });
  });
}

const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/**
 * A positive sign of life rather than "still there after a sleep": the
 * process answers a message. Together with handle() resolving only once the
 * enforcement of a command is over (SIGKILL wait included), nothing can
 * still be on its way to it.
 */
async function answers(child: ChildProcess): Promise<boolean> {
  if (!alive(child)) return false;
  const pong = new Promise<boolean>((resolve) => {
    child.once("message", () => resolve(true));
    child.once("exit", () => resolve(false));
  });
  child.send("ping");
  return pong;
}
const reader = createProcReader({ procRoot: "/proc" });

async function commandFor(child: ChildProcess, overrides: Partial<TerminateCommand> = {}): Promise<TerminateCommand> {
  const own = await reader.readOwnership(child.pid!);
  return {
    commandId: `cmd-${child.pid}`,
    pid: child.pid!,
    startedAt: own?.startedAt ?? null,
    gpuUuid: "GPU-test",
    alertId: "alert-test",
    reservationId: "res-booker",
    protect: { reservationId: "res-booker", logins: [] },
    killAfterSeconds: 1,
    reason: "in conflict with booking res-booker",
    ...overrides,
  };
}

/** The agent's own reading, as nvidia-smi and /proc give it: these processes on GPU-test, now. */
async function readingOf(children: ChildProcess[], gpuUuid = "GPU-test", sampledAt = new Date()): Promise<Snapshot> {
  const processes = await Promise.all(
    children.map(async (child) => ({ gpuUuid, pid: child.pid!, startedAt: (await reader.readOwnership(child.pid!))?.startedAt ?? null })),
  );
  return { sampledAt: sampledAt.toISOString(), processes } as unknown as Snapshot;
}

interface EnforcerSetup {
  /** The processes this agent's own latest reading lists on GPU-test (default: every process the test started). */
  reading?: Snapshot | null;
  /** Another reader of /proc (one that lies about the owner). */
  procReader?: ProcReader;
}

async function enforcer(allow: boolean, setup: EnforcerSetup = {}) {
  const reports: EnforcementReport[] = [];
  const reading = setup.reading === undefined ? await readingOf(children) : setup.reading;
  const subject = createEnforcer({
    allow,
    reader: setup.procReader ?? reader,
    latestReading: () => reading,
    minUid,
    report: (report) => reports.push(report),
    log: () => {},
  });
  return { subject, reports, actions: () => reports.map((report) => `${report.pid} ${report.action}`) };
}

describe("the agent's enforcer on real processes", () => {
  it("terminates the intruder and leaves the booker's process alone", async () => {
    const bookedBy = startProcess({ env: { GPUDESK_RESERVATION: "res-booker" } });
    const intruder = startProcess();
    await Promise.all([ready(bookedBy), ready(intruder)]);
    const { subject, reports, actions } = await enforcer(true);

    await subject.handle(await commandFor(bookedBy));
    await subject.handle(await commandFor(intruder));

    expect(await exited(intruder, 5000)).toBe("SIGTERM");
    expect(await answers(bookedBy)).toBe(true);
    expect(actions()).toEqual([`${bookedBy.pid} refused`, `${intruder.pid} sigterm`, `${intruder.pid} exited`]);
    expect(reports[0].detail).toContain("GPUDESK_RESERVATION");
    expect(reports[1].login).toBe(login);
  });

  it("sends SIGKILL after the second grace period to a process that ignores SIGTERM", async () => {
    const stubborn = startProcess({ stubborn: true });
    await ready(stubborn);
    const { subject, actions } = await enforcer(true);
    const started = Date.now();
    await subject.handle(await commandFor(stubborn, { killAfterSeconds: 1 }));
    expect(await exited(stubborn, 5000)).toBe("SIGKILL");
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(actions()).toEqual([`${stubborn.pid} sigterm`, `${stubborn.pid} sigkill`]);
  });

  it("never touches a process of the booker's login, nor a pid that now belongs to another process", async () => {
    const mine = startProcess();
    const other = startProcess();
    await Promise.all([ready(mine), ready(other)]);
    const { subject, actions } = await enforcer(true);
    await subject.handle(await commandFor(mine, { protect: { reservationId: "res-booker", logins: [login] } }));
    await subject.handle(await commandFor(other, { startedAt: "2001-01-01T00:00:00.000Z" }));
    expect([await answers(mine), await answers(other)]).toEqual([true, true]);
    expect(actions()).toEqual([`${mine.pid} refused`, `${other.pid} refused`]);
  });

  it("does nothing without --allow-enforcement", async () => {
    const intruder = startProcess();
    await ready(intruder);
    const { subject, reports } = await enforcer(false);
    await subject.handle(await commandFor(intruder));
    expect(await answers(intruder)).toBe(true);
    expect(reports).toEqual([expect.objectContaining({ action: "refused", detail: "this agent was started without --allow-enforcement" })]);
  });

  it("reports a process that is already gone", async () => {
    const brief = startProcess();
    await ready(brief);
    const command = await commandFor(brief);
    brief.kill("SIGKILL");
    await exited(brief, 5000);
    const { subject, actions } = await enforcer(true);
    await subject.handle(command);
    expect(actions()).toEqual([`${brief.pid} gone`]);
  });

  it("takes no request on the server's word: a pid its own reading does not place on that GPU, or a request without a start time", async () => {
    const listed = startProcess();
    const unlisted = startProcess();
    const elsewhere = startProcess();
    await Promise.all([ready(listed), ready(unlisted), ready(elsewhere)]);
    const reading = await readingOf([listed]);
    reading.processes.push(...(await readingOf([elsewhere], "GPU-other")).processes);
    const { subject, reports } = await enforcer(true, { reading });
    // Not a compute process on any GPU here (a rogue report named it).
    await subject.handle(await commandFor(unlisted));
    // On another GPU than the one the request names.
    await subject.handle(await commandFor(elsewhere));
    // No start time: never matches.
    await subject.handle(await commandFor(listed, { startedAt: null }));
    expect(reports.map((report) => [report.pid, report.action])).toEqual([
      [unlisted.pid, "refused"],
      [elsewhere.pid, "refused"],
      [listed.pid, "refused"],
    ]);
    expect(reports[0].detail).toContain("not a compute process on GPU-test");
    expect(reports[2].detail).toContain("no start time");
    expect([await answers(listed), await answers(unlisted), await answers(elsewhere)]).toEqual([true, true, true]);
  });

  it("never signals root or a system user, even on the GPU", async () => {
    const target = startProcess();
    await ready(target);
    for (const uid of [0, minUid - 1]) {
      // /proc as if the process were root's (or a system user's): the owner decides, not the request.
      const lying: ProcReader = { readOwnership: async (pid) => ({ ...(await reader.readOwnership(pid))!, uid }) };
      const { subject, reports } = await enforcer(true, { procReader: lying });
      await subject.handle(await commandFor(target));
      expect(reports.map((report) => report.action)).toEqual(["refused"]);
      expect(reports[0].detail).toMatch(uid === 0 ? /root/ : /system user/);
    }
    expect(await answers(target)).toBe(true);
  });

  it("acts on no reading, or one too old to say what runs now", async () => {
    const target = startProcess();
    await ready(target);
    const none = await enforcer(true, { reading: null });
    await none.subject.handle(await commandFor(target));
    const stale = await enforcer(true, { reading: await readingOf([target], "GPU-test", new Date(Date.now() - 60_000)) });
    await stale.subject.handle(await commandFor(target));
    expect([...none.reports, ...stale.reports].map((report) => report.action)).toEqual(["refused", "refused"]);
    expect(await answers(target)).toBe(true);
  });
});
