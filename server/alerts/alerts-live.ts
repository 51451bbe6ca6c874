import type { Namespace } from "socket.io";
import type { AlertView } from "@/lib/domain/alerts";
import type { GpuReconciliation } from "@/lib/domain/attribution";
import type { LiveClientToServer, LiveServerToClient } from "@/lib/live/live-events";
import { onAlertChanged } from "@/server/alerts/alert-events";
import type { Role } from "@/server/access/principal";
import { liveViewerOf } from "@/server/live/live-endpoint";
import { viewerRoom } from "@/server/live/viewer-rooms";
import { log } from "@/server/core/log";
import { can } from "@/server/access/permissions";

type LiveNamespace = Namespace<LiveClientToServer, LiveServerToClient>;

export interface AlertsLiveOptions {
  listOpen: (viewer: AlertViewer) => Promise<AlertView[]>;
  /** The GPU states for a client that asks after it missed the snapshot (the tick's). */
  gpuStates: () => Record<string, GpuReconciliation>;
}

/** A person watching, as the live endpoint authenticated them. */
export interface AlertViewer {
  id: string;
  role: Role;
}

const ADMINS_ROOM = "alerts:admins";

/**
 * Alerts on `/live`: each signed-in viewer joins a room (admins one for
 * all, everyone else their own), gets `alerts:snapshot` with the open
 * alerts that concern them on every (re)connect, then `alerts:update` as
 * alerts open, close or are acknowledged. Who watches is what the live
 * endpoint's handshake check found (server/live/live-endpoint.ts): a wall
 * display gets no alerts.
 */
export function attachAlertsLive(namespace: LiveNamespace, options: AlertsLiveOptions): () => void {
  namespace.on("connection", (socket) => {
    const live = liveViewerOf(socket);
    const viewer: AlertViewer | null = live?.kind === "user" ? { id: live.userId, role: live.role } : null;
    socket.on("gpu:states", (reply) => {
      // Who runs where and by what evidence is for people; a wall display gets its reduced scope only.
      if (typeof reply === "function") reply({ serverTime: new Date().toISOString(), states: viewer ? options.gpuStates() : {} });
    });
    if (!viewer) return;
    // Everyone joins their own room (other notices address it too); admins also the room for all alerts.
    void socket.join(can.joinAdminsRoom(viewer) ? [ADMINS_ROOM, viewerRoom(viewer.id)] : viewerRoom(viewer.id));
    options
      .listOpen(viewer)
      .then((alerts) => socket.emit("alerts:snapshot", { serverTime: new Date().toISOString(), alerts }))
      .catch((error: unknown) => log.warn(`could not send the open alerts: ${error instanceof Error ? error.message : String(error)}`));
  });

  return onAlertChanged((change) => {
    namespace.to([ADMINS_ROOM, ...change.alert.people.map((person) => viewerRoom(person.id))]).emit("alerts:update", change);
  });
}
