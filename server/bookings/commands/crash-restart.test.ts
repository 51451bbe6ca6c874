import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAKE_NVIDIA_SMI, idleH200Fixture, realServer } from "@/server/testing/real-server";
import { testDatabaseProvider } from "@/server/testing/test-db";

/*
 * Durable before acknowledged, across a crash (issue 47): a booking that
 * book() answered 201 for is stored, whole, when the answer leaves. The real
 * `gpudesk serve` is killed with SIGKILL right after the answer (no shutdown
 * handler runs) and started again: the booking is there, and holds its GPU.
 * SQLite only: the point is the process (the production build `npm test`
 * makes first). A booking killed inside its transaction: killed-inside.test.ts.
 */

const real = realServer({ port: 5340, dataDirPrefix: "gpudesk-booking-crash-", env: { GPUDESK_OFFLINE_AFTER_MS: "3000" } });
const HOST = "booking-crash-host";

interface Booking {
  id: string;
  state: string;
  purpose: string;
  startsAt: string;
  endsAt: string;
  host: { name: string };
  gpus: { index: number }[];
  bookedBy: { username: string };
}

// SQLite only: the point is the process (the production build `npm test` makes first).
describe.skipIf(testDatabaseProvider() !== "sqlite")("a booking acknowledged just before a crash of the server", () => {
  const { run, start, until, api } = real;
  beforeAll(() => real.requireBuild());
  afterAll(() => real.stopAll());

  it("is there, whole, after a SIGKILL right after its 201 and a restart", async () => {
    let server = await real.serve();
    run(["user", "add", "crashbooker", "--password-stdin"], "pw-crashbooker-long-enough");
    run(["user", "add", "crashother", "--password-stdin"], "pw-crashother-long-enough");
    const bookerToken = run(["token", "create", "--user", "crashbooker", "--label", "crash test"]);
    const otherToken = run(["token", "create", "--user", "crashother", "--label", "crash test"]);
    const hostToken = run(["host", "add", HOST]);
    start(["agent", "--server", real.url, "--nvidia-smi", FAKE_NVIDIA_SMI, "--host-name", HOST], {
      GPUDESK_AGENT_TOKEN: hostToken,
      FAKE_NVIDIA_SMI_DIR: idleH200Fixture(),
      FAKE_NVIDIA_SMI_VARY: "0",
    });
    const booked = await until("the booking", async () => {
      const made = await api<Booking>(bookerToken, "POST", "/api/v1/reservations", { host: HOST, gpus: [0], durationMinutes: 120, purpose: "acknowledged, then the crash" });
      return made.status === 201 ? made.body : null;
    }, 120_000);
    // The crash, as soon as the answer is in.
    await real.stop(server, "SIGKILL");
    server = await real.serve();

    const after = await api<Booking>(bookerToken, "GET", `/api/v1/reservations/${booked.id}`);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ id: booked.id, state: "active", purpose: booked.purpose, startsAt: booked.startsAt, endsAt: booked.endsAt, host: { name: HOST }, gpus: [{ index: 0 }], bookedBy: { username: "crashbooker" } });
    // Its unit is held too, not only its row: another person's booking of the GPU is refused.
    const other = await api<{ error: { code: string } }>(otherToken, "POST", "/api/v1/reservations", { host: HOST, gpus: [0], durationMinutes: 30, purpose: "the same GPU" });
    expect(other.status).toBe(409);
    expect(server.exitCode).toBeNull();
  }, 600_000);
});
