import { describe, expect, it } from "vitest";
import type { GpuReconciliation } from "@/lib/domain/attribution";
import type { LiveBooking } from "@/lib/live/live";
import type { FleetSnapshotWire } from "@/lib/live/live-wire";
import { FleetState } from "@/server/fleet/fleet-state";
import type { LiveViewer } from "@/server/access/live-revocation";
import { makeGpu, makeProcess, makeSnapshot } from "@/server/testing/factories";
import { startLiveServer } from "@/server/testing/live-clients";

// Two people: the one whose page is drawn, and another whose booking the fleet shows.
const authenticate = async ({ headers }: { headers: Headers; token: string | null }): Promise<LiveViewer | null> =>
  headers.get("cookie") === "gpudesk.session_token=ok" ? { kind: "user", userId: "user-me", role: "member", sessionId: "session-me" } : null;

/** What differs between two snapshots built a moment apart: the time they were built. */
const timeless = ({ serverTime: _serverTime, ...rest }: FleetSnapshotWire) => rest;

describe("the snapshot the fleet page embeds", () => {
  it("is the member scope's snapshot the same person's socket gets: another person's booking as the scope shows it, as its socket has them", async () => {
    const fleet = new FleetState({ offlineAfterMs: 5000, simulated: true });
    const gpu = makeGpu({ utilizationGpuPct: 64.6, memoryUsedMiB: 1024 });
    const idle = makeGpu({ index: 1 });
    const booking: LiveBooking = {
      reservationId: "res-other",
      hostId: "h-1",
      hostName: "node-1",
      gpus: [{ uuid: gpu.uuid, index: 0 }],
      bookedBy: { id: "user-other", username: "other", name: "Other Person" },
      startsAt: new Date(Date.now() - 60_000).toISOString(),
      endsAt: new Date(Date.now() + 3_600_000).toISOString(),
      purpose: "a training run",
    };
    const state: GpuReconciliation = { state: "booked_in_use", reservationId: "res-other", bookedBy: booking.bookedBy, processes: [], problem: null };
    const live = await startLiveServer(fleet, {
      tickMs: 50,
      flushMs: 10,
      authenticate,
      bookings: { current: () => [booking], subscribe: () => () => {} },
      states: { current: () => ({ [gpu.uuid]: state }), changed: () => null },
    });
    try {
      fleet.connectHost("h-1", "node-1", true);
      const processes = [makeProcess(gpu, { pid: 7, user: "other", command: "python train.py" })];
      fleet.ingest("h-1", makeSnapshot([gpu, idle], Date.now(), { host: { name: "node-1", driverVersion: null, cudaVersion: null }, processes }));

      const { socket } = live.connect({}, { cookie: "gpudesk.session_token=ok" });
      const fromSocket = await new Promise<FleetSnapshotWire>((resolve, reject) => {
        socket.once("fleet:snapshot", resolve);
        socket.once("connect_error", reject);
      });
      const embedded = live.memberSnapshot();

      expect(timeless(embedded)).toEqual(timeless(fromSocket));
      // What a person notices: the other person's booking and the state it gives the GPU, nothing they could not see on the socket.
      expect(embedded.bookings).toEqual([booking]);
      expect(embedded.gpuStates?.[gpu.uuid]?.state).toBe("booked_in_use");
      expect(embedded.simulated).toBe(true);
    } finally {
      await live.close();
    }
  });
});
