import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Server } from "socket.io";
import type { LiveBooking } from "@/lib/live/live";
import { AGENT_NAMESPACE } from "@/lib/live/live";
import { DEFAULT_ALERT_CONFIG } from "@/server/alerts/alert-config";
import { repoRoot } from "@/server/core/paths";
import { uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Enforcement from end to end: the real `gpudesk agent` (reading a fake
 * nvidia-smi that lists processes this test started, and the real /proc),
 * the real /agent endpoint, reconciliation, the conflict alert, the host's
 * setting and the audit log. The intruder is terminated, the booker's
 * process is not, and nothing happens without --allow-enforcement.
 */

const FIXTURE = path.join(repoRoot, "host/collector/fixtures/h200-driver-580");
const FIXTURE_UUID = "GPU-ef2803ab-ed44-fce3-aa80-5f09cb377b2d";

type Modules = {
  db: typeof import("@/server/core/db");
  fixtures: typeof import("@/server/testing/booking-fixtures");
  hosts: typeof import("@/server/hosts/host-registry");
  startTick: typeof import("@/server/main/start-tick");
  FleetState: typeof import("@/server/fleet/fleet-state").FleetState;
  createIngest: typeof import("@/server/fleet/ingest").createIngest;
  attachAgentEndpoint: typeof import("@/server/fleet/agent-endpoint").attachAgentEndpoint;
  bookingClaimValue: typeof import("@/server/bookings/rules/booking-proof").bookingClaimValue;
};
let m: Modules;
let http: HttpServer;
let url: string;
let stop: () => Promise<void>;
/** The person whose Unix login runs this test's processes: those without GPUDESK_RESERVATION are theirs. */
let intruderPerson: { id: string };
/**
 * The agent never signals root or system users: run as root, the test's
 * processes run as nobody; otherwise as the runner, with the agent's
 * system-user floor at the runner's uid where that is below 1000.
 */
const runningAsRoot = process.getuid?.() === 0;
const as = runningAsRoot ? { uid: 65534, gid: 65534 } : {};
const login = runningAsRoot ? "nobody" : os.userInfo().username;
const minUid = runningAsRoot ? 1000 : Math.max(1, Math.min(1000, process.getuid?.() ?? 1000));
const bookings: LiveBooking[] = [];
const children: ChildProcess[] = [];
/** When the reconciliation and enforcement tick ran: the positive sign that a decision was made. */
const ticks: number[] = [];

beforeAll(async () => {
  await useTestDatabase();
  m = {
    db: await import("@/server/core/db"),
    fixtures: await import("@/server/testing/booking-fixtures"),
    hosts: await import("@/server/hosts/host-registry"),
    startTick: await import("@/server/main/start-tick"),
    FleetState: (await import("@/server/fleet/fleet-state")).FleetState,
    createIngest: (await import("@/server/fleet/ingest")).createIngest,
    attachAgentEndpoint: (await import("@/server/fleet/agent-endpoint")).attachAgentEndpoint,
    bookingClaimValue: (await import("@/server/bookings/rules/booking-proof")).bookingClaimValue,
  };
  intruderPerson = await m.fixtures.createTestUser("member", "intruder");
  await m.db.db().user.update({ where: { id: intruderPerson.id }, data: { unixLogin: login } });
  // The server as server/index.ts wires it, without Next: agent endpoint, then alerts on the same namespace.
  const fleet = new m.FleetState({ offlineAfterMs: 5000, simulated: false });
  const ingest = m.createIngest(fleet);
  http = createServer();
  const io = new Server(http);
  m.attachAgentEndpoint(io.of(AGENT_NAMESPACE) as never, fleet, ingest);
  // The server's tick, every 500 ms: reconciliation, the alert rules and enforcement; a last consumer notes when each ran.
  const tick = await m.startTick.startTick({
    fleet,
    bookings: { current: () => bookings, subscribe: () => () => {} },
    alerts: { config: { ...DEFAULT_ALERT_CONFIG, holdMs: { ...DEFAULT_ALERT_CONFIG.holdMs, conflict: 1000 } } },
    agentNamespace: io.of(AGENT_NAMESPACE) as never,
    live: { name: "the test's clock", runs: "everywhere", consume: () => void ticks.push(Date.now()) },
    tickMs: 500,
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  stop = async () => {
    await tick.stop();
    io.disconnectSockets(true);
    await new Promise<void>((resolve) => io.close(() => resolve()));
  };
}, 120_000);

afterAll(async () => {
  await stop?.();
});

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

function startIdle(env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { ...as, env: { ...process.env, ...env }, stdio: "ignore" });
  children.push(child);
  return child;
}

/** A fake nvidia-smi directory: the H200 recording with its own GPU UUID, listing `pids` on that GPU. */
function fakeNvidiaSmi(uuid: string, pids: number[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gpudesk-enforce-"));
  for (const name of ["query-gpu__load.csv", "query-xml.xml", "list-L.txt", "version.txt"]) {
    writeFileSync(path.join(dir, name), readFileSync(path.join(FIXTURE, name), "utf8").replaceAll(FIXTURE_UUID, uuid));
  }
  writeFileSync(
    path.join(dir, "query-compute-apps__load.csv"),
    ["gpu_uuid, pid, process_name, used_gpu_memory [MiB]", ...pids.map((pid) => `${uuid}, ${pid}, node, 512 MiB`), ""].join("\n"),
  );
  return dir;
}

function startAgent(hostName: string, token: string, dir: string, allow: boolean, interval = "500ms"): ChildProcess {
  const args = ["bin/gpudesk.js", "agent", "--server", url, "--nvidia-smi", path.join(repoRoot, "scripts/fake-nvidia-smi.mjs"), "--host-name", hostName, "--interval", interval, "--enforce-min-uid", String(minUid)];
  const child = spawn(process.execPath, allow ? [...args, "--allow-enforcement"] : args, {
    cwd: repoRoot,
    env: { ...process.env, GPUDESK_AGENT_TOKEN: token, FAKE_NVIDIA_SMI_DIR: dir },
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr?.on("data", (chunk: Buffer) => process.stderr.write(`[agent ${hostName}] ${chunk}`));
  children.push(child);
  return child;
}

const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

async function until<T>(read: () => Promise<T | null | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A host with enforcement on and a booker who booked its GPU (`bookedNow`: the booking is a row made now, as the API makes it). */
async function setUp(uuidSuffix: string, bookedNow = false) {
  const uuid = `GPU-ef2803ab-ed44-fce3-aa80-5f09cb37${uuidSuffix}`;
  const { host, token } = await m.hosts.createHost(uniqueName("enforce").toLowerCase());
  await m.db.db().hostSetting.create({ data: { hostId: host.id, terminateIntruders: true, graceSeconds: 1, killAfterSeconds: 1 } });
  const bookedBy = await m.fixtures.createTestUser("member", "bookedBy");
  const bookingId = bookedNow
    ? (
        await m.db.db().reservation.create({
          data: { userId: bookedBy.id, hostId: host.id, startsAt: new Date(Date.now() - 60_000), endsAt: new Date(Date.now() + 3_600_000), purpose: "booked over running work" },
          select: { id: true },
        })
      ).id
    : `res-${uuidSuffix}`;
  bookings.push({
    reservationId: bookingId,
    hostId: host.id,
    hostName: host.name,
    gpus: [{ uuid, index: 0 }],
    bookedBy: { id: bookedBy.id, username: bookedBy.username, name: bookedBy.name },
    startsAt: new Date(Date.now() - 60_000).toISOString(),
    endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    purpose: "enforcement test",
  });
  return { uuid, host, token, reservationId: bookingId };
}

/** Enforcement's own lines about the host (its registration is audited too, as an account action). */
const audit = (hostId: string) =>
  m.db.db().auditLog.findMany({
    where: { entityType: "host", entityId: hostId, action: { startsWith: "enforcement." } },
    orderBy: { at: "asc" },
    select: { action: true, after: true },
  });

describe("enforcement with the real agent", () => {
  it("terminates the intruder after the grace period, never the booker's process, and audits each step", async () => {
    const { uuid, host, token, reservationId: bookingId } = await setUp("0001");
    const bookerProcess = startIdle({ GPUDESK_RESERVATION: m.bookingClaimValue(bookingId) });
    const intruder = startIdle();
    // Names the booking without its proof: hides on it, and is terminated like any intruder.
    const hiding = startIdle({ GPUDESK_RESERVATION: bookingId });
    startAgent(host.name, token, fakeNvidiaSmi(uuid, [bookerProcess.pid!, intruder.pid!, hiding.pid!]), true);

    await until(async () => !alive(intruder) && !alive(hiding), 60_000, "the intruders to be terminated");
    expect(intruder.signalCode).toBe("SIGTERM");
    expect(hiding.signalCode).toBe("SIGTERM");
    expect(alive(bookerProcess)).toBe(true);

    const alert = await m.db.db().alert.findFirstOrThrow({ where: { kind: "conflict", hostId: host.id }, select: { userIds: true, evidence: true } });
    expect(JSON.parse(alert.userIds)).toEqual(expect.arrayContaining([intruderPerson.id]));
    const entries = await until(async () => {
      const rows = await audit(host.id);
      return rows.filter((row) => row.action === "enforcement.exited").length === 2 ? rows : null;
    }, 15_000, "the agent's reports in the audit log");
    const about = (pid: number | undefined) => entries.filter((row) => JSON.parse(row.after!).pid === pid);
    expect(about(hiding.pid).map((row) => row.action)).toEqual(["enforcement.requested", "enforcement.sigterm", "enforcement.exited"]);
    expect(JSON.parse(about(hiding.pid)[0].after!)).toMatchObject({ evidence: { kind: "login", value: login }, person: { id: intruderPerson.id } });
    const ofIntruder = about(intruder.pid);
    expect(ofIntruder.map((row) => row.action)).toEqual(["enforcement.requested", "enforcement.sigterm", "enforcement.exited"]);
    expect(JSON.parse(ofIntruder[0].after!)).toMatchObject({ pid: intruder.pid, login, reservationId: bookingId, person: { id: intruderPerson.id } });
    expect(JSON.parse(ofIntruder[1].after!)).toMatchObject({ pid: intruder.pid, action: "sigterm", login });
    // Nothing was ever asked about the booker's process.
    expect(entries.every((row) => JSON.parse(row.after!).pid !== bookerProcess.pid)).toBe(true);
  }, 90_000);

  it("terminates nothing when the agent was started without --allow-enforcement", async () => {
    const { uuid, host, token, reservationId: bookingId } = await setUp("0002");
    const bookerProcess = startIdle({ GPUDESK_RESERVATION: m.bookingClaimValue(bookingId) });
    const intruder = startIdle();
    startAgent(host.name, token, fakeNvidiaSmi(uuid, [bookerProcess.pid!, intruder.pid!]), false);

    const opened = await until(
      () => m.db.db().alert.findFirst({ where: { kind: "conflict", hostId: host.id, closedAt: null }, select: { openedAt: true } }),
      60_000,
      "the conflict alert",
    );
    // Not a sleep: wait until the enforcement tick has run three times after the grace period
    // (1 s) ended, each time finding the conflict and an agent that does not allow it. With
    // --allow-enforcement the first of them sends the request (the test above).
    const graceOver = opened.openedAt.getTime() + 1000;
    await until(async () => ticks.filter((at) => at > graceOver).length >= 3, 30_000, "three enforcement ticks after the grace period");
    expect(await audit(host.id)).toEqual([]);
    expect(await m.db.db().alert.count({ where: { kind: "conflict", hostId: host.id, closedAt: null } })).toBe(1);
    expect(alive(intruder)).toBe(true);
    expect(alive(bookerProcess)).toBe(true);
  }, 90_000);

  it("spares work that ran before its GPU was booked over it (allowBusy), and terminates what starts after", async () => {
    const earlier = startIdle();
    // Started, and seen by /proc, before the booking is made.
    await until(async () => readFileSync(`/proc/${earlier.pid}/stat`, "utf8").length > 0, 5000, "the earlier process");
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const { uuid, host, token } = await setUp("0003", true);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const later = startIdle();
    startAgent(host.name, token, fakeNvidiaSmi(uuid, [earlier.pid!, later.pid!]), true);

    await until(async () => !alive(later), 60_000, "the later intruder to be terminated");
    const spared = await until(async () => (await audit(host.id)).find((row) => row.action === "enforcement.spared"), 15_000, "the spared entry");
    expect(JSON.parse(spared.after!)).toMatchObject({ pid: earlier.pid, login });
    expect(alive(earlier)).toBe(true);
    expect((await audit(host.id)).filter((row) => JSON.parse(row.after!).pid === earlier.pid).map((row) => row.action)).toEqual(["enforcement.spared"]);
  }, 90_000);
});

describe("a rogue reporter with the host's token", () => {
  it("cannot have the real agent signal what it names, nor write enforcement reports into the audit log", async () => {
    const { uuid, host, token } = await setUp("0004");
    const { createSocketTransport } = await import("@/host/agent/socket-transport");
    // Root's own process, on no GPU at all, and one of the test's processes that is on no GPU either.
    const rootOwned = spawn("sleep", ["600"], { stdio: "ignore" });
    children.push(rootOwned);
    const unlisted = startIdle();
    // The real agent, allowed to enforce; its nvidia-smi lists no process (it reads once: the rogue speaks for the host after that).
    startAgent(host.name, token, fakeNvidiaSmi(uuid, []), true, "10m");
    const realReading = JSON.parse(
      await new Promise<string>((resolve, reject) => {
        const once = spawn(process.execPath, ["bin/gpudesk.js", "agent", "--once", "--json", "--nvidia-smi", path.join(repoRoot, "scripts/fake-nvidia-smi.mjs"), "--host-name", host.name], {
          cwd: repoRoot,
          env: { ...process.env, FAKE_NVIDIA_SMI_DIR: fakeNvidiaSmi(uuid, [rootOwned.pid!, unlisted.pid!]) },
          stdio: ["ignore", "pipe", "inherit"],
        });
        let out = "";
        once.stdout.on("data", (chunk: Buffer) => (out += chunk));
        once.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`agent --once exited ${code}`))));
      }),
    ) as { processes: { pid: number; user: string | null; startedAt: string | null }[] };
    // The rogue: the same token, a hello that does not offer enforcement, readings that name both processes as
    // mallory's on the booked GPU, the root one with no start time, the other with its true one.
    const rogue = createSocketTransport({
      serverUrl: url,
      token,
      hello: { agentVersion: "0.0.0", source: "nvidia-smi", intervalMs: 200, hostName: host.name, enforcement: false, topology: null },
      log: () => {},
    });
    await until(async () => rogue.connected, 15_000, "the rogue to connect");
    const forged = () => ({
      ...realReading,
      sampledAt: new Date().toISOString(),
      processes: realReading.processes.map((entry) => ({ ...entry, user: "mallory", startedAt: entry.pid === rootOwned.pid ? null : entry.startedAt })),
    });
    const feeding = setInterval(() => void rogue.send({ snapshots: [forged() as never], dropped: 0 }).catch(() => {}), 200);
    try {
      // The server asks the real agent about the process with a start time; the agent refuses (not on its GPU).
      const refused = await until(
        async () => (await audit(host.id)).find((row) => row.action === "enforcement.refused" && JSON.parse(row.after!).pid === unlisted.pid),
        60_000,
        "the real agent's refusal",
      );
      expect(JSON.parse(refused.after!).detail).toContain("not a compute process");
      // Forged reports: no such request, a date of 2001, a real request's id for another pid. None is taken.
      // The request about `unlisted`, which its refusal has closed.
      const requested = (await audit(host.id)).find((row) => row.action === "enforcement.requested" && JSON.parse(row.after!).pid === unlisted.pid);
      const commandId = requested ? (JSON.parse(requested.after!) as { commandId: string }).commandId : "none";
      const forgedReport = (overrides: object) => ({
        commandId: "forged-0001",
        pid: rootOwned.pid!,
        action: "sigkill" as const,
        detail: "forged",
        login: "mallory",
        command: "sleep 600",
        at: "2001-01-01T00:00:00.000Z",
        ...overrides,
      });
      const answers = await Promise.all([
        rogue.report(forgedReport({})).then(() => "taken", () => "refused"),
        rogue.report(forgedReport({ commandId })).then(() => "taken", () => "refused"),
        rogue.report(forgedReport({ commandId, pid: unlisted.pid!, action: "sigterm" })).then(() => "taken", () => "refused"),
      ]);
      expect(answers).toEqual(["refused", "refused", "refused"]);
      // Only the server's requests and the real agent's refusals are in the log: nothing was signalled.
      const entries = await audit(host.id);
      expect(new Set(entries.map((row) => row.action))).toEqual(new Set(["enforcement.requested", "enforcement.refused"]));
      expect(entries.filter((row) => JSON.parse(row.after!).detail === "forged")).toEqual([]);
      // Dated by the server, not by whoever reported.
      const at = await m.db.db().auditLog.findMany({ where: { entityId: host.id }, select: { at: true } });
      expect(at.every((row) => row.at.getTime() > Date.now() - 10 * 60_000)).toBe(true);
      expect([alive(rootOwned), alive(unlisted)]).toEqual([true, true]);
    } finally {
      clearInterval(feeding);
      await rogue.close();
    }
  }, 120_000);
});
