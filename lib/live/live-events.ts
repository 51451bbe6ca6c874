import type { IdleNotice } from "@/lib/domain/idle-release";
import type { AlertsSnapshot, AlertUpdate } from "@/lib/domain/alerts";
import type { GpuStatesAnswer } from "@/lib/domain/attribution";
import type { BookingsUpdate } from "@/lib/live/live";
import type { DisplayDeltaWire, DisplaySnapshotWire, FleetDeltaWire, FleetSnapshotWire, GpuDeltaWire, GpuSnapshotWire } from "@/lib/live/live-wire";
import type { PersonNoticeView } from "@/lib/domain/person-notices";
import type { GrantNotice } from "@/lib/domain/waitlist-schema";

/**
 * The events of the /live namespace, typed for both `new Server<…>()` and
 * `io()`. Apart from lib/live/live.ts because they name the wire's encodings
 * (lib/live/live-wire.ts), which are built from lib/live/live.ts's types.
 */
export interface LiveServerToClient {
  /** The member scope (signed-in people): the whole fleet. */
  "fleet:snapshot": (snapshot: FleetSnapshotWire) => void;
  "fleet:delta": (delta: FleetDeltaWire) => void;
  /** The display scope (wall screens): DisplayFeed and nothing more. */
  "display:snapshot": (snapshot: DisplaySnapshotWire) => void;
  "display:delta": (delta: DisplayDeltaWire) => void;
  "fleet:bookings": (update: BookingsUpdate) => void;
  /** The GPU scope (the GPU page): one watched GPU whole, after `gpu:watch` and on every re-watch. */
  "gpu:snapshot": (snapshot: GpuSnapshotWire) => void;
  /** What changed of a watched GPU since the last delta (its room's, encoded once per flush). */
  "gpu:delta": (delta: GpuDeltaWire) => void;
  /** The open alerts that concern this viewer, on every (re)connect (none for a display token). */
  "alerts:snapshot": (snapshot: AlertsSnapshot) => void;
  /** An alert that concerns this viewer opened, closed or was acknowledged. */
  "alerts:update": (update: AlertUpdate) => void;
  /** This viewer's waiting request became a booking (sent to that person only). */
  "waitlist:granted": (notice: GrantNotice) => void;
  /** This viewer's booking is about to be, or was, released for idleness (sent to the booker only). */
  "reservation:idle": (notice: IdleNotice) => void;
  /** A notice about this viewer's own bookings (server/notifications/notify-person.ts), by their preferences. */
  "notice:person": (notice: PersonNoticeView) => void;
}

export interface LiveClientToServer {
  /** Asks for every GPU's state now (a page that started listening after the snapshot). */
  "gpu:states": (reply: (answer: GpuStatesAnswer) => void) => void;
  /**
   * Watches one GPU (member scope only, a few at most per socket): a
   * `gpu:snapshot` follows within a flush, then `gpu:delta`s. `ok` is false
   * for a display, a malformed UUID or a socket that watches too many.
   */
  "gpu:watch": (uuid: string, reply: (answer: { ok: boolean }) => void) => void;
  "gpu:unwatch": (uuid: string) => void;
  /** Takes the whole fleet's feed (a snapshot, then deltas and bookings); it is the default at connection unless the handshake says `fleet: false`. */
  "fleet:follow": () => void;
  /** Leaves the whole fleet's feed (a page that shows one GPU). */
  "fleet:unfollow": () => void;
}
