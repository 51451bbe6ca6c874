import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAKE_NVIDIA_SMI, idleH200Fixture, realServer } from "@/server/testing/real-server";
import { testDatabaseProvider } from "@/server/testing/test-db";

/*
 * The waitlist across a crash of the real `gpudesk serve`: a request is
 * acknowledged (201), the server dies at once with SIGKILL (no shutdown
 * handler runs), and the request is still in the queue of the new server,
 * in its place, and is granted when the GPU it waits for is released.
 * Nothing of the queue lives in memory only: it is stored before it is
 * acknowledged, and the grant is derived from stored rows. Seconds, not
 * minutes: the release is a person's, not the clock's. SQLite only: the
 * point is the process (the production build `npm test` makes first).
 */

const real = realServer({ port: 3442, dataDirPrefix: "gpudesk-waitlist-restart-", env: { GPUDESK_OFFLINE_AFTER_MS: "3000" } });
const { run, start, until, api } = real;
const HOST = "waitlist-restart-host";

interface Booking {
  id: string;
  state: string;
  host: { name: string };
  gpus: { index: number }[];
  bookedBy: { username: string };
}
interface Waiting {
  id: string;
  status: string;
  position: number | null;
  reservationId: string | null;
}

describe.skipIf(testDatabaseProvider() !== "sqlite")("the waitlist across a crash of the server", () => {
  beforeAll(() => real.requireBuild());
  afterAll(() => real.stopAll());

  it("a request acknowledged just before a SIGKILL waits on after the restart and gets the GPU when it is released", async () => {
    let server = await real.serve();
    run(["user", "add", "wlbooker", "--password-stdin"], "pw-wlbooker-long-enough");
    run(["user", "add", "wlwaiter", "--password-stdin"], "pw-wlwaiter-long-enough");
    const bookerToken = run(["token", "create", "--user", "wlbooker", "--label", "restart test"]);
    const waiterToken = run(["token", "create", "--user", "wlwaiter", "--label", "restart test"]);
    const hostToken = run(["host", "add", HOST]);
    start(["agent", "--server", real.url, "--nvidia-smi", FAKE_NVIDIA_SMI, "--host-name", HOST], {
      GPUDESK_AGENT_TOKEN: hostToken,
      FAKE_NVIDIA_SMI_DIR: idleH200Fixture(),
      FAKE_NVIDIA_SMI_VARY: "0",
    });
    // The host's one GPU, booked as soon as its agent has reported it.
    const booking = await until("the first booking", async () => {
      const made = await api<Booking>(bookerToken, "POST", "/api/v1/reservations", { host: HOST, gpus: [0], durationMinutes: 120, purpose: "holds the GPU" });
      return made.status === 201 ? made.body : null;
    }, 120_000);

    const joined = await api<Waiting>(waiterToken, "POST", "/api/v1/waitlist", { host: HOST, count: 1, durationMinutes: 30, purpose: "waits across the crash" });
    expect(joined.status).toBe(201);
    expect(joined.body).toMatchObject({ status: "waiting", position: 1, reservationId: null });
    // The crash, right after the acknowledgement.
    await real.stop(server, "SIGKILL");
    server = await real.serve();

    const after = await api<Waiting>(waiterToken, "GET", `/api/v1/waitlist/${joined.body.id}`);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ id: joined.body.id, status: "waiting", position: 1 });

    // The booker gives the GPU back on the new server: the waiting request gets it.
    const released = await until("the release", async () => {
      const answer = await api<Booking>(bookerToken, "POST", `/api/v1/reservations/${booking.id}/release`);
      return answer.status === 200 ? answer.body : null;
    }, 60_000);
    expect(released.state).toBe("released");
    const granted = await until("the grant", async () => {
      const view = (await api<Waiting>(waiterToken, "GET", `/api/v1/waitlist/${joined.body.id}`)).body;
      return view.status === "granted" ? view : null;
    }, 120_000);
    const grant = await api<Booking>(waiterToken, "GET", `/api/v1/reservations/${granted.reservationId}`);
    expect(grant.status).toBe(200);
    expect(grant.body).toMatchObject({ state: "active", host: { name: HOST }, gpus: [{ index: 0 }], bookedBy: { username: "wlwaiter" } });
    expect(server.exitCode).toBeNull();
  }, 600_000);
});
