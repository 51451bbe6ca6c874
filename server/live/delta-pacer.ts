export interface DeltaPacerOptions {
  /**
   * The bounded wait: no change waits longer than this after the flush that
   * first saw it for a reading still due (a late or silent host, a long
   * burst at a large fleet: it goes out in parts).
   */
  maxHoldMs: number;
  /**
   * A change waits at least this long (default 0). Tests set it to hold a
   * reading across a snapshot's flush; the server leaves it at 0.
   */
  minHoldMs?: number;
}

interface HostCadence {
  /** When (pacer's clock) the host's newest live reading arrived. */
  arrivedAt: number;
  /** That reading's sample time (the agent's clock): intervals are measured on it, not on arrival jitter. */
  sampledAt: number;
  /** The host's sampling interval, from its last two readings; 1 s until known. */
  intervalMs: number;
}

const DEFAULT_INTERVAL_MS = 1000;
/** A host silent this long is forgotten (it went away; it is learnt again from its next reading). */
const FORGET_AFTER_MS = 60_000;

/**
 * When the live feed's next delta is due. Each host's agent samples at its
 * own interval (on whole seconds at 1 Hz), so once a reading of a new round
 * has arrived the pacer knows which other hosts' readings are due within the
 * bounded wait: those whose next reading is expected by then and that have
 * not missed one. The delta goes as soon as every one of them has arrived,
 * or when the wait runs out: a burst goes out as one delta, about one a
 * second, right after its last reading rather than after a fixed quiet time
 * (which held every reading 20–45 ms; docs/live-protocol.md).
 *
 * The caller feeds it every live reading (`arrived`) and asks on each flush
 * (`due`); `arrived` says when a flush should run now, and `wakeAt` when
 * the bounded wait of a round still waiting runs out. It reads no clock of
 * its own: every call is given `now`.
 */
export class DeltaPacer {
  private readonly hosts = new Map<string, HostCadence>();
  /** The round in progress: when a flush first saw a change waiting, and the hosts still awaited. */
  private round: { firstSeenAt: number; awaited: Set<string> } | null = null;

  constructor(private readonly options: DeltaPacerOptions) {}

  /**
   * A reading of `hostId` sampled at `sampledAt` arrived at `now`. Returns
   * true when a flush should look now: the first change of a round, or the
   * last reading the round waited for.
   */
  arrived(hostId: string, sampledAt: number, now: number): boolean {
    const host = this.hosts.get(hostId);
    if (!host) {
      this.hosts.set(hostId, { arrivedAt: now, sampledAt, intervalMs: DEFAULT_INTERVAL_MS });
    } else if (sampledAt > host.sampledAt) {
      const gap = sampledAt - host.sampledAt;
      // A gap beyond a minute is a host that was away, not its cadence.
      if (gap <= FORGET_AFTER_MS) host.intervalMs = gap;
      host.sampledAt = sampledAt;
      host.arrivedAt = now;
    } else {
      // A repeated reading: it tells nothing of the host's cadence (the next poll sends it).
      return false;
    }
    if (this.round === null) return true;
    return this.round.awaited.delete(hostId) && this.round.awaited.size === 0;
  }

  /** Whether the delta should go now, given the changes waiting at `now`. */
  due(pending: number, now: number): boolean {
    if (pending === 0) {
      this.round = null;
      return false;
    }
    this.round ??= { firstSeenAt: now, awaited: this.awaitedAt(now) };
    const waited = now - this.round.firstSeenAt;
    if (waited < (this.options.minHoldMs ?? 0)) return false;
    return this.round.awaited.size === 0 || waited >= this.options.maxHoldMs;
  }

  /**
   * When the round in progress falls due by the clock alone (its bounded
   * wait, or the minimum hold, runs out), on the clock `due` was given;
   * null without a round. The caller sets its one timer by it: nothing here
   * polls.
   */
  wakeAt(): number | null {
    if (this.round === null) return null;
    const minHoldMs = this.options.minHoldMs ?? 0;
    return this.round.firstSeenAt + (this.round.awaited.size === 0 ? minHoldMs : Math.max(minHoldMs, this.options.maxHoldMs));
  }

  /** A delta went out (also one sent at once, after a snapshot). */
  sent(): void {
    this.round = null;
  }

  /**
   * Hosts whose next reading is expected within the bounded wait and not
   * overdue by half an interval (a host that missed a reading, or went
   * away, holds no one).
   */
  private awaitedAt(now: number): Set<string> {
    const awaited = new Set<string>();
    for (const [hostId, host] of this.hosts) {
      const since = now - host.arrivedAt;
      if (since > FORGET_AFTER_MS) this.hosts.delete(hostId);
      // Never earlier than half an interval: a fast host is not awaited right after its reading.
      else if (since >= Math.max(host.intervalMs / 2, host.intervalMs - this.options.maxHoldMs) && since < 1.5 * host.intervalMs) awaited.add(hostId);
    }
    return awaited;
  }
}
