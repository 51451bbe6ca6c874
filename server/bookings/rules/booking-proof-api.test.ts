import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "socket.io";
import { io as connect } from "socket.io-client";
import { beforeAll, describe, expect, it } from "vitest";
import type { FleetSnapshot } from "@/lib/live/live";
import type { BookingView } from "@/lib/domain/booking-types";
import { FleetState } from "@/server/fleet/fleet-state";
import { makeProcess, makeSnapshot } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * A booking's proof (the secret half of GPUDESK_RESERVATION) reaches its
 * booker and nobody else: not another member, not an admin, not the fleet
 * API, the /live snapshot or /metrics, even while the booker's job reports
 * it from its environment. Ids stay public.
 */

type Context = { params: Promise<Record<string, string>> };
type Handler = (request: Request, context: Context) => Promise<Response>;

const fleet = new FleetState({ offlineAfterMs: 60_000, simulated: false });
let tokens: { bookedBy: string; other: string; admin: string };
type TestHost = Awaited<ReturnType<typeof import("@/server/testing/booking-fixtures").createTestHost>>;
let createTestHost: typeof import("@/server/testing/booking-fixtures").createTestHost;
let proof: typeof import("@/server/bookings/rules/booking-proof");
let routes: {
  collection: typeof import("@/app/api/v1/reservations/route");
  item: typeof import("@/app/api/v1/reservations/[id]/route");
  cancel: typeof import("@/app/api/v1/reservations/[id]/cancel/route");
  fleet: typeof import("@/app/api/v1/fleet/route");
};

beforeAll(async () => {
  await useTestDatabase();
  const { createIngest } = await import("@/server/fleet/ingest");
  const { setRuntime } = await import("@/server/runtime/runtime");
  setRuntime({ fleet, ingest: createIngest(fleet), disconnectAgents: () => {} });
  const { createUser } = await import("@/server/auth/users");
  const { createPersonalToken } = await import("@/server/auth/tokens");
  ({ createTestHost } = await import("@/server/testing/booking-fixtures"));
  const [bookedBy, other, admin] = await Promise.all([
    createUser({ username: "bookedBy", password: "booker-password" }),
    createUser({ username: "other", password: "other-password" }),
    createUser({ username: "boss", password: "boss-password", role: "admin" }),
  ]);
  tokens = {
    bookedBy: (await createPersonalToken(bookedBy.id, "proof test")).token,
    other: (await createPersonalToken(other.id, "proof test")).token,
    admin: (await createPersonalToken(admin.id, "proof test")).token,
  };
  proof = await import("@/server/bookings/rules/booking-proof");
  routes = {
    collection: await import("@/app/api/v1/reservations/route"),
    item: await import("@/app/api/v1/reservations/[id]/route"),
    cancel: await import("@/app/api/v1/reservations/[id]/cancel/route"),
    fleet: await import("@/app/api/v1/fleet/route"),
  };
}, 60_000);

async function call(handler: unknown, init: { method: string; token: string; body?: unknown; params?: Record<string, string>; query?: string }) {
  const request = new Request(`http://gpudesk.test/api/v1/x${init.query ?? ""}`, {
    method: init.method,
    headers: { "content-type": "application/json", authorization: `Bearer ${init.token}` },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const response = await (handler as Handler)(request, { params: Promise.resolve(init.params ?? {}) });
  return { status: response.status, text: await response.text() };
}

/** The booker books GPU 0 of a host of its own and gets the value that proves it. */
async function book(): Promise<{ id: string; value: string; secret: string; view: BookingView; host: TestHost }> {
  const host = await createTestHost(2);
  const booked = await call(routes.collection.POST, {
    method: "POST",
    token: tokens.bookedBy,
    body: { host: host.name, gpus: [0], durationMinutes: 60, purpose: "proof test" },
  });
  expect(booked.status, booked.text).toBe(201);
  const view = JSON.parse(booked.text) as BookingView;
  const value = view.launch.reservationValue!;
  return { id: view.id, value, secret: value.split(".")[1], view, host };
}

describe("who sees a booking's proof", () => {
  it("gives the booker the value that proves the booking, in every launch line and again on request", async () => {
    const { id, value, view } = await book();
    expect(value).toMatch(new RegExp(`^${id}\\.[A-Za-z0-9_-]{32}$`));
    expect(proof.checkBookingClaim(value)).toEqual({ reservationId: id, proven: true });
    expect(view.launch.exportReservation).toBe(`export GPUDESK_RESERVATION=${value}`);
    expect(view.launch.docker).toContain(`-e GPUDESK_RESERVATION=${value}`);
    expect(view.launch.torchrun).toContain(`GPUDESK_RESERVATION=${value}`);
    expect(view.launch.compose).toContain(`GPUDESK_RESERVATION: "${value}"`);

    const again = await call(routes.item.GET, { method: "GET", token: tokens.bookedBy, params: { id } });
    expect((JSON.parse(again.text) as BookingView).launch.reservationValue).toBe(value);
    const listed = await call(routes.collection.GET, { method: "GET", token: tokens.bookedBy, query: "?state=current" });
    expect(listed.text).toContain(value);
  });

  it("never gives it to another member or an admin, who still see the id", async () => {
    const { id, secret } = await book();
    const otherGet = await call(routes.item.GET, { method: "GET", token: tokens.other, params: { id } });
    expect(otherGet.status).toBe(404);
    expect(otherGet.text).not.toContain(secret);

    const adminGet = await call(routes.item.GET, { method: "GET", token: tokens.admin, params: { id } });
    expect(adminGet.status).toBe(200);
    const adminView = JSON.parse(adminGet.text) as BookingView;
    expect(adminView.id).toBe(id);
    expect(adminView.launch).toMatchObject({ reservationValue: null, exportReservation: null, cudaVisibleDevices: "0" });
    expect(adminGet.text).not.toContain(secret);
    expect(adminView.launch.docker).not.toContain("GPUDESK_RESERVATION");

    const adminList = await call(routes.collection.GET, { method: "GET", token: tokens.admin, query: "?all=true&state=all" });
    expect(adminList.status).toBe(200);
    expect(adminList.text).toContain(id);
    expect(adminList.text).not.toContain(secret);

    const cancelled = await call(routes.cancel.POST, { method: "POST", token: tokens.admin, params: { id }, body: { reason: "testing who sees what" } });
    expect(cancelled.status).toBe(200);
    expect(cancelled.text).not.toContain(secret);
  });

  it("keeps it out of the fleet API, the /live snapshot and /metrics while the booker's job reports it", async () => {
    const { id, value, secret, host } = await book();
    const { createIngest } = await import("@/server/fleet/ingest");
    fleet.connectHost(host.id, host.name, false);
    const job = makeProcess(host.gpus[0], { pid: 5151, user: "bookedBy", reservationId: value });
    const reply = await createIngest(fleet).ingestBatch({ ...host, simulated: false }, [makeSnapshot(host.gpus, Date.now(), { processes: [job] })]);
    expect(reply).toEqual({ accepted: 1, rejected: [] });

    const answer = await call(routes.fleet.GET, { method: "GET", token: tokens.other });
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain(secret);
    const snapshot = JSON.parse(answer.text) as FleetSnapshot;
    const reported = snapshot.gpus.find((gpu) => gpu.uuid === host.gpus[0].uuid)?.processes[0];
    // The id stays, with the server's word that the proof held.
    expect(reported).toMatchObject({ pid: 5151, reservationId: id, reservationProven: true });

    const { collectMetrics } = await import("@/server/metrics/collect-metrics");
    expect((await collectMetrics()).body).not.toContain(secret);

    const { attachLiveEndpoint } = await import("@/server/live/live-endpoint");
    const http = createServer();
    const io = new Server(http);
    const { LIVE_FORMAT_VERSION } = await import("@/lib/live/live-wire");
    const live = attachLiveEndpoint(io.of("/live") as never, fleet, {
      authenticate: async () => ({ kind: "user", userId: "a-member", role: "member", sessionId: null }),
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const socket = connect(`http://127.0.0.1:${(http.address() as AddressInfo).port}/live`, {
        transports: ["websocket"],
        reconnection: false,
        auth: { v: LIVE_FORMAT_VERSION },
      });
      const live = await new Promise<FleetSnapshot>((resolve) => socket.once("fleet:snapshot", resolve));
      socket.close();
      expect(live.gpus.some((gpu) => gpu.processes.some((process) => process.reservationId === id))).toBe(true);
      expect(JSON.stringify(live)).not.toContain(secret);
    } finally {
      live.stop();
      await new Promise<void>((resolve) => io.close(() => resolve()));
    }
  });
});
