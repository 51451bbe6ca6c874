import type { Namespace } from "socket.io";
import type { AlertView } from "@/lib/alerts";
import type { GpuReconciliation } from "@/lib/attribution";
import type { LiveClientToServer, LiveServerToClient } from "@/lib/live-events";
import { onAlertChanged } from "@/server/alerts/alert-events";
import type { UserPrincipal } from "@/server/auth/principal";
import { viewerRoom } from "@/server/fleet/viewer-rooms";
import { log } from "@/server/log";

type Viewer = UserPrincipal["user"];
type LiveNamespace = Namespace<LiveClientToServer, LiveServerToClient>;

export interface AlertsLiveOptions {
  /** The person behind a /live connection; null for a wall display (it gets no alerts). */
  resolveViewer: (handshake: { headers: Headers; token: string | null }) => Promise<Viewer | null>;
  listOpen: (viewer: Viewer) => Promise<AlertView[]>;
  /** The GPU states for a client that asks after it missed the snapshot. */
  gpuStates: () => Record<string, GpuReconciliation>;
}

const ADMINS_ROOM = "alerts:admins";

function handshakeHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(", "));
  }
  return headers;
}

/**
 * Alerts on `/live`: each signed-in viewer joins a room (admins one for
 * all, everyone else their own), gets `alerts:snapshot` with the open
 * alerts that concern them on every (re)connect, then `alerts:update` as
 * alerts open, close or are acknowledged. Registered after the live
 * endpoint, so its own check of who may connect has already passed.
 */
export function attachAlertsLive(namespace: LiveNamespace, options: AlertsLiveOptions): () => void {
  namespace.use((socket, next) => {
    const auth = socket.handshake.auth as { token?: unknown } | undefined;
    const token = typeof auth?.token === "string" && auth.token.length > 0 ? auth.token : null;
    options
      .resolveViewer({ headers: handshakeHeaders(socket.handshake.headers), token })
      .then((viewer) => {
        (socket.data as { alertsViewer?: Viewer | null }).alertsViewer = viewer;
        next();
      })
      .catch((error: unknown) => {
        // Alerts are an extra: a failed lookup costs this viewer the alerts, not the fleet.
        log.warn(`could not tell who watches /live for alerts: ${error instanceof Error ? error.message : String(error)}`);
        next();
      });
  });

  namespace.on("connection", (socket) => {
    const viewer = (socket.data as { alertsViewer?: Viewer | null }).alertsViewer;
    socket.on("gpu:states", (reply) => {
      // Who runs where and by what evidence is for people; a wall display gets its reduced scope only.
      if (typeof reply === "function") reply({ serverTime: new Date().toISOString(), states: viewer ? options.gpuStates() : {} });
    });
    if (!viewer) return;
    // Everyone joins their own room (other notices address it too); admins also the room for all alerts.
    void socket.join(viewer.role === "admin" ? [ADMINS_ROOM, viewerRoom(viewer.id)] : viewerRoom(viewer.id));
    options
      .listOpen(viewer)
      .then((alerts) => socket.emit("alerts:snapshot", { serverTime: new Date().toISOString(), alerts }))
      .catch((error: unknown) => log.warn(`could not send the open alerts: ${error instanceof Error ? error.message : String(error)}`));
  });

  return onAlertChanged((change) => {
    namespace.to([ADMINS_ROOM, ...change.alert.people.map((person) => viewerRoom(person.id))]).emit("alerts:update", change);
  });
}
