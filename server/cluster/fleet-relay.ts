import { z } from "zod";
import { HISTORY_POINTS } from "@/lib/live";
import { snapshotSchema, type Snapshot } from "@/lib/snapshot";
import type { FleetState, LocalHostChange } from "@/server/fleet/fleet-state";
import { log } from "@/server/log";

/*
 * Why relay readings rather than share deltas: the live state is per
 * instance (FleetState in memory, fed by the agents connected to it), and
 * `/live` sends a full snapshot on every (re)connect, then deltas. If each
 * instance only broadcast the deltas of its own agents through the adapter,
 * a browser's snapshot would hold just the hosts of the instance it landed
 * on, the GPU states and alerts (reconciliation) would see a part of the
 * fleet, and a host would look offline wherever its agent is not connected.
 * So every instance forwards the readings its agents sent, and every other
 * instance applies them to its own FleetState under the sender's id (never
 * to the usage history: each reading is counted once, by the instance that
 * received it from the agent). Each instance then has the whole fleet and
 * sends its own browsers snapshots and deltas locally.
 */

const MAX_EVENTS_PER_MESSAGE = 500;
const id = z.string().min(1).max(200);

const relayEventSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("connected"), hostId: id, name: z.string().max(300), simulated: z.boolean() }),
  z.object({ kind: z.literal("disconnected"), hostId: id }),
  z.object({ kind: z.literal("removed"), hostId: id }),
  z.object({ kind: z.literal("snapshot"), hostId: id, name: z.string().max(300), simulated: z.boolean(), snapshot: z.unknown() }),
]);

const relayMessageSchema = z.object({
  from: id,
  events: z.array(relayEventSchema).max(MAX_EVENTS_PER_MESSAGE),
});

export type RelayMessage = z.infer<typeof relayMessageSchema>;
type RelayEvent = RelayMessage["events"][number];

export interface RelayTransport {
  /** Sends to every other instance (not back to this one). */
  send: (message: RelayMessage) => void;
  /** Calls the handler with what other instances send; returns a function that stops listening. */
  listen: (handler: (message: unknown) => void) => () => void;
}

export interface FleetRelayOptions {
  fleet: FleetState;
  /** This instance's id: what the others file its hosts' connections under. */
  instanceId: string;
  transport: RelayTransport;
  /** Events are gathered for this long and sent as one message. */
  batchMs?: number;
  now?: () => number;
}

/**
 * Forwards this instance's agent connections and readings to the other
 * instances, and applies theirs to the local fleet state.
 */
export class FleetRelay {
  private pending: RelayEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly stopLocal: () => void;
  private readonly stopListening: () => void;
  private readonly now: () => number;
  private failing = false;

  constructor(private readonly options: FleetRelayOptions) {
    this.now = options.now ?? Date.now;
    this.stopLocal = options.fleet.onLocalChange((change) => this.queue(toEvent(change)));
    this.stopListening = options.transport.listen((message) => this.apply(message));
  }

  /** The ingest hook: a reading an agent of this instance sent and that was accepted. */
  forwardSnapshot(host: { id: string; name: string; simulated: boolean }, snapshot: Snapshot): void {
    // Older readings (a replay after a reconnect) only matter to the others' 15-minute sparklines.
    if (Date.parse(snapshot.sampledAt) < this.now() - HISTORY_POINTS * 1000) return;
    this.queue({ kind: "snapshot", hostId: host.id, name: host.name, simulated: host.simulated, snapshot });
  }

  /** Sends what is gathered now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.pending.length > 0) {
      const events = this.pending.splice(0, MAX_EVENTS_PER_MESSAGE);
      try {
        this.options.transport.send({ from: this.options.instanceId, events });
        this.failing = false;
      } catch (error) {
        if (!this.failing) log.warn(`cluster: could not relay readings: ${error instanceof Error ? error.message : String(error)}`);
        this.failing = true;
      }
    }
  }

  stop(): void {
    this.flush();
    this.stopLocal();
    this.stopListening();
  }

  private queue(event: RelayEvent): void {
    this.pending.push(event);
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.options.batchMs ?? 100);
      this.timer.unref?.();
    }
  }

  /** Applies another instance's message; a malformed event is skipped, not the rest. */
  apply(raw: unknown): void {
    const parsed = relayMessageSchema.safeParse(raw);
    if (!parsed.success) {
      log.warn(`cluster: ignored a malformed relay message: ${parsed.error.issues[0]?.message}`);
      return;
    }
    const { from, events } = parsed.data;
    if (from === this.options.instanceId) return;
    const fleet = this.options.fleet;
    for (const event of events) {
      switch (event.kind) {
        case "connected":
          fleet.connectHost(event.hostId, event.name, event.simulated, from);
          break;
        case "disconnected":
          fleet.disconnectHost(event.hostId, from);
          break;
        case "removed":
          fleet.removeHost(event.hostId, from);
          break;
        case "snapshot": {
          const snapshot = snapshotSchema.safeParse(event.snapshot);
          if (!snapshot.success) continue;
          // Also how an instance that started after the agent connected learns of the host.
          fleet.connectHost(event.hostId, event.name, event.simulated, from);
          fleet.ingest(event.hostId, snapshot.data);
          break;
        }
      }
    }
  }
}

function toEvent(change: LocalHostChange): RelayEvent {
  return change;
}
