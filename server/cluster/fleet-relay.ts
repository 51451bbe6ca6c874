import { HISTORY_POINTS } from "@/lib/live/live";
import type { RowValue } from "@/lib/live/live-rows";
import type { Snapshot } from "@/lib/domain/snapshot";
import { RELAY_FORMAT_VERSION, RelayDecoder, RelayEncoder, type Decoded, type RelayEvent, type RelayMessage } from "@/server/cluster/relay-wire";
import type { FleetState, LocalHostChange } from "@/server/fleet/fleet-state";
import { log } from "@/server/core/log";

export type { RelayMessage } from "@/server/cluster/relay-wire";

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
 *
 * The readings travel compactly (server/cluster/relay-wire.ts): a keyframe
 * per host, then rows of what changed; an instance that misses a message
 * or joins late asks the sender for keyframes.
 */

const MAX_EVENTS_PER_MESSAGE = 500;
/** A host's keyframe is asked for again only after this long (the answer is on its way meanwhile). */
const ASK_AGAIN_MS = 2000;

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

/** What the relay did since it started: /metrics-style counters for tests and the benchmark. */
export interface RelayCounters {
  keyframesSent: number;
  rowsSent: number;
  applied: number;
  keyframesAsked: number;
  skippedEvents: number;
  skippedMessages: number;
}

/**
 * Forwards this instance's agent connections and readings to the other
 * instances, and applies theirs to the local fleet state.
 */
export class FleetRelay {
  readonly counters: RelayCounters = { keyframesSent: 0, rowsSent: 0, applied: 0, keyframesAsked: 0, skippedEvents: 0, skippedMessages: 0 };
  private pending: RelayEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly stopLocal: () => void;
  private readonly stopListening: () => void;
  private readonly now: () => number;
  private readonly encoder = new RelayEncoder();
  private readonly decoder = new RelayDecoder();
  /** When a keyframe was last asked for, per host. */
  private readonly asked = new Map<string, number>();
  private readonly warnedVersions = new Set<string>();
  private failing = false;

  constructor(private readonly options: FleetRelayOptions) {
    this.now = options.now ?? Date.now;
    this.stopLocal = options.fleet.onLocalChange((change) => this.local(change));
    this.stopListening = options.transport.listen((message) => this.apply(message));
  }

  /** The ingest hook: a reading an agent of this instance sent and that was accepted. */
  forwardSnapshot(host: { id: string; name: string; simulated: boolean }, snapshot: Snapshot): void {
    // Older readings (a replay after a reconnect) only matter to the others' 15-minute sparklines.
    if (Date.parse(snapshot.sampledAt) < this.now() - HISTORY_POINTS * 1000) return;
    const event = this.encoder.encode(host, snapshot, this.now());
    if (event.k === "key") this.counters.keyframesSent += 1;
    else this.counters.rowsSent += 1;
    this.queue(event);
  }

  /** Sends what is gathered now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.pending.length > 0) {
      const events = this.pending.splice(0, MAX_EVENTS_PER_MESSAGE);
      try {
        this.options.transport.send({ v: RELAY_FORMAT_VERSION, from: this.options.instanceId, e: events });
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

  private local(change: LocalHostChange): void {
    if (change.kind === "connected") this.queue({ k: "connected", h: change.hostId, name: change.name, simulated: change.simulated });
    else if (change.kind === "disconnected") this.queue({ k: "disconnected", h: change.hostId });
    else {
      this.encoder.forget(change.hostId);
      this.queue({ k: "removed", h: change.hostId });
    }
  }

  private queue(event: RelayEvent): void {
    this.pending.push(event);
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.options.batchMs ?? 100);
      this.timer.unref?.();
    }
  }

  /**
   * Applies another instance's message. A message of another format
   * version, or not a relay message at all, is skipped whole; a malformed
   * event is skipped, not the rest. Either way one warning, never a throw.
   */
  apply(raw: unknown): void {
    const message = raw as Partial<RelayMessage> | null;
    if (typeof message !== "object" || message === null || typeof message.from !== "string" || !Array.isArray(message.e)) {
      this.counters.skippedMessages += 1;
      log.warn("cluster: ignored a relay message that is not one");
      return;
    }
    const { from, e: events } = message;
    if (message.v !== RELAY_FORMAT_VERSION) {
      this.counters.skippedMessages += 1;
      // Once per instance and version: a rolling upgrade would repeat it for every message.
      const which = `${from}\u0000${String(message.v)}`;
      if (!this.warnedVersions.has(which)) log.warn(`cluster: ignored relay messages of format ${String(message.v)} from ${from} (this instance reads ${RELAY_FORMAT_VERSION}): upgrade every instance`);
      this.warnedVersions.add(which);
      return;
    }
    if (from === this.options.instanceId) return;
    const needed: string[] = [];
    const problems: string[] = [];
    for (const event of events) {
      let problem: string | null;
      try {
        problem = this.applyEvent(from, event as unknown, needed);
      } catch (error) {
        problem = error instanceof Error ? error.message : String(error);
      }
      if (problem) problems.push(problem);
    }
    if (problems.length > 0) {
      this.counters.skippedEvents += problems.length;
      log.warn(`cluster: ignored ${problems.length} malformed relay event(s) from ${from}: ${problems[0]}`);
    }
    if (needed.length > 0) {
      this.counters.keyframesAsked += needed.length;
      this.queue({ k: "need", to: from, h: needed });
    }
  }

  /** Applies one event; returns what is wrong with it, or null. Hosts whose keyframe is needed go into `needed`. */
  private applyEvent(from: string, raw: unknown, needed: string[]): string | null {
    if (typeof raw !== "object" || raw === null) return "not an event";
    const event = raw as Record<string, unknown>;
    const fleet = this.options.fleet;
    switch (event.k) {
      case "connected":
        if (typeof event.h !== "string" || typeof event.name !== "string") return "a connection without host";
        fleet.connectHost(event.h, event.name, event.simulated === true, from);
        return null;
      case "disconnected":
        if (typeof event.h !== "string") return "a disconnection without host";
        fleet.disconnectHost(event.h, from);
        return null;
      case "removed":
        if (typeof event.h !== "string") return "a removal without host";
        this.decoder.forget(event.h);
        this.asked.delete(event.h);
        fleet.removeHost(event.h, from);
        return null;
      case "need":
        if (!Array.isArray(event.h)) return "a keyframe request without hosts";
        if (event.to === this.options.instanceId) this.encoder.want(event.h.filter((id): id is string => typeof id === "string"));
        return null;
      case "key":
        if (typeof event.h !== "string" || typeof event.n !== "number" || typeof event.name !== "string") return "a keyframe without host";
        return this.ingest(from, event.h, this.decoder.keyframe(from, { h: event.h, n: event.n, name: event.name, simulated: event.simulated === true, s: event.s }), needed);
      case "row":
        if (typeof event.h !== "string" || typeof event.n !== "number" || typeof event.t !== "number" || !Array.isArray(event.r)) return "a reading without host, number, time or rows";
        return this.ingest(from, event.h, this.decoder.rows(from, { h: event.h, n: event.n, t: event.t, r: event.r as RowValue[] }), needed);
      default:
        return `an event of unknown kind ${JSON.stringify(event.k)}`;
    }
  }

  private ingest(from: string, hostId: string, decoded: Decoded, needed: string[]): string | null {
    if (!decoded.ok) {
      if (!decoded.need) return decoded.malformed;
      const now = this.now();
      if (now - (this.asked.get(hostId) ?? -Infinity) >= ASK_AGAIN_MS) {
        this.asked.set(hostId, now);
        needed.push(hostId);
      }
      return null;
    }
    const fleet = this.options.fleet;
    // Also how an instance that started after the agent connected learns of the host.
    fleet.connectHost(hostId, decoded.name, decoded.simulated, from);
    fleet.ingest(hostId, decoded.snapshot);
    this.counters.applied += 1;
    return null;
  }
}
