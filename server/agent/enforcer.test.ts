import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import type { EnforcementReport, TerminateCommand } from "@/lib/enforcement-protocol";
import { createEnforcer } from "@/server/agent/enforcer";
import { createProcReader } from "@/server/collector/proc/proc-reader";

/**
 * The agent's enforcer against real processes that the test starts and
 * the real /proc: what it terminates, what it refuses, and that nothing is
 * signalled without --allow-enforcement.
 */

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** A node process that idles; `stubborn` ones ignore SIGTERM. */
function startProcess(options: { env?: Record<string, string>; stubborn?: boolean } = {}): ChildProcess {
  const script = `${options.stubborn ? "process.on('SIGTERM', () => {});" : ""} setInterval(() => {}, 1000); process.on('message', () => process.send?.('pong')); process.send?.('ready');`;
  const child = spawn(process.execPath, ["-e", script], { env: { ...process.env, ...options.env }, stdio: ["ignore", "ignore", "ignore", "ipc"] });
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
    reservationId: "res-holder",
    protect: { reservationId: "res-holder", logins: [] },
    killAfterSeconds: 1,
    reason: "in conflict with booking res-holder",
    ...overrides,
  };
}

function enforcer(allow: boolean) {
  const reports: EnforcementReport[] = [];
  const subject = createEnforcer({ allow, reader, report: (report) => reports.push(report), log: () => {} });
  return { subject, reports, actions: () => reports.map((report) => `${report.pid} ${report.action}`) };
}

describe("the agent's enforcer on real processes", () => {
  it("terminates the intruder and leaves the holder's process alone", async () => {
    const holder = startProcess({ env: { GPUDESK_RESERVATION: "res-holder" } });
    const intruder = startProcess();
    await Promise.all([ready(holder), ready(intruder)]);
    const { subject, reports, actions } = enforcer(true);

    await subject.handle(await commandFor(holder));
    await subject.handle(await commandFor(intruder));

    expect(await exited(intruder, 5000)).toBe("SIGTERM");
    expect(await answers(holder)).toBe(true);
    expect(actions()).toEqual([`${holder.pid} refused`, `${intruder.pid} sigterm`, `${intruder.pid} exited`]);
    expect(reports[0].detail).toContain("GPUDESK_RESERVATION");
    expect(reports[1].login).toBe(os.userInfo().username);
  });

  it("sends SIGKILL after the second grace period to a process that ignores SIGTERM", async () => {
    const stubborn = startProcess({ stubborn: true });
    await ready(stubborn);
    const { subject, actions } = enforcer(true);
    const started = Date.now();
    await subject.handle(await commandFor(stubborn, { killAfterSeconds: 1 }));
    expect(await exited(stubborn, 5000)).toBe("SIGKILL");
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(actions()).toEqual([`${stubborn.pid} sigterm`, `${stubborn.pid} sigkill`]);
  });

  it("never touches a process of the holder's login, nor a pid that now belongs to another process", async () => {
    const mine = startProcess();
    const other = startProcess();
    await Promise.all([ready(mine), ready(other)]);
    const { subject, actions } = enforcer(true);
    await subject.handle(await commandFor(mine, { protect: { reservationId: "res-holder", logins: [os.userInfo().username] } }));
    await subject.handle(await commandFor(other, { startedAt: "2001-01-01T00:00:00.000Z" }));
    expect([await answers(mine), await answers(other)]).toEqual([true, true]);
    expect(actions()).toEqual([`${mine.pid} refused`, `${other.pid} refused`]);
  });

  it("does nothing without --allow-enforcement", async () => {
    const intruder = startProcess();
    await ready(intruder);
    const { subject, reports } = enforcer(false);
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
    const { subject, actions } = enforcer(true);
    await subject.handle(command);
    expect(actions()).toEqual([`${brief.pid} gone`]);
  });
});
