import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backdateBooking } from "@/server/idle-release/backdate-idle";
import { FAKE_NVIDIA_SMI, idleH200Fixture, realServer } from "@/server/testing/real-server";
import { testDatabaseProvider } from "@/server/testing/test-db";

/*
 * A real `gpudesk serve` restarted in the middle of a booking's idle window:
 * the release still comes on time, because the idle clock is derived from
 * the stored minute rollups and the warning's claim in the booking's row,
 * not from memory. An agent fed by the fake nvidia-smi reports an idle GPU
 * throughout (and reconnects to the new server by itself). The first idle
 * minutes are stored by this test, a second process on the server's
 * database (backdateBooking), rather than waited for: the window is 4
 * minutes, 3 are stored, the restart comes in the warning, and the last
 * minute is read live by the new server. SQLite only: the point is the
 * process, not the database. The server is the production build made
 * before the tests (`npm test` builds first).
 */

const RELEASE_AFTER = 4;
const STORED_IDLE = 3;
const real = realServer({ port: 3441, dataDirPrefix: "gpudesk-idle-restart-", env: { GPUDESK_ROLLUP_FLUSH_SECONDS: "5", GPUDESK_OFFLINE_AFTER_MS: "3000" } });
// This process writes the stored minutes into the server's own database.
process.env.GPUDESK_DATA_DIR = real.dataDir;
const { run, start, until, api } = real;

interface Booking {
  id: string;
  state: string;
  releasedBecause: string | null;
  endsAt: string;
  idle: { phase: string; idleSince: string; idleMinutes: number } | null;
}

describe.skipIf(testDatabaseProvider() !== "sqlite")("idle release across a server restart", () => {
  beforeAll(() => real.requireBuild());
  afterAll(() => real.stopAll());

  it("a booking idle before and after the restart is released on time", async () => {
    let server = await real.serve();
    run(["user", "add", "idleadmin", "--password-stdin", "--admin"], "pw-idleadmin-long-enough");
    run(["user", "add", "idlebooker", "--password-stdin"], "pw-idlebooker-long-enough");
    const adminToken = run(["token", "create", "--user", "idleadmin", "--label", "restart test"]);
    const bookerToken = run(["token", "create", "--user", "idlebooker", "--label", "restart test"]);
    const hostToken = run(["host", "add", "idle-restart-host"]);
    start(["agent", "--server", real.url, "--nvidia-smi", FAKE_NVIDIA_SMI, "--host-name", "idle-restart-host"], {
      GPUDESK_AGENT_TOKEN: hostToken,
      FAKE_NVIDIA_SMI_DIR: idleH200Fixture(),
      FAKE_NVIDIA_SMI_VARY: "0",
    });
    const policy = await api(adminToken, "PUT", "/api/v1/policies", { maxDurationMinutes: 10080, maxGpusPerUser: 8, maxAdvanceDays: 30, idleReleaseAfterMinutes: RELEASE_AFTER, idleWarningMinutes: 1 });
    expect(policy.status).toBe(200);
    const booking = await until("the booking", async () => {
      const made = await api<Booking>(bookerToken, "POST", "/api/v1/reservations", { host: "idle-restart-host", gpus: [0], durationMinutes: 60, purpose: "idle across a restart" });
      return made.status === 201 ? made.body : null;
    }, 120_000);

    // Three idle minutes are stored before the restart, one to go: the server reads them and warns.
    const startsAt = await backdateBooking(booking.id, STORED_IDLE, new Date(), { reading: { utilPct: 0, memUsedMiB: 0 } });
    const before = await until("the warning before the restart", async () => {
      const view = (await api<Booking>(bookerToken, "GET", `/api/v1/reservations/${booking.id}`)).body;
      return view.idle?.phase === "warning" ? view : null;
    }, 120_000);
    const idleSinceMs = Date.parse(before.idle!.idleSince);
    expect(idleSinceMs).toBe(startsAt.getTime());

    // The restart, in the middle of the window.
    const stoppedAt = Date.now();
    await real.stop(server, "SIGTERM");
    server = await real.serve();
    const downMs = Date.now() - stoppedAt;

    const released = await until("the release", async () => {
      const view = (await api<Booking>(bookerToken, "GET", `/api/v1/reservations/${booking.id}`)).body;
      return view.state === "released" ? view : null;
    }, 300_000);
    expect(released.releasedBecause).toBe("idle");
    const dueMs = idleSinceMs + RELEASE_AFTER * 60_000;
    const releasedAtMs = Date.parse(released.endsAt);
    expect(releasedAtMs).toBeGreaterThanOrEqual(dueMs);
    // On time: late by at most the minutes the server was away (without readings, they pause the clock) and a
    // pass. A clock kept in memory would have started again at the restart: three idle minutes later still.
    expect(releasedAtMs - dueMs).toBeLessThan(downMs + 75_000);
  }, 600_000);
});
