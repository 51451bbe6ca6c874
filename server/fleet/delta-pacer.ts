export interface DeltaPacerOptions {
  /**
   * A delta goes out once this long has passed without a new change: the
   * end of a burst. Agents sample on whole seconds, so each second's
   * readings arrive as one burst; sending at its end makes one delta of it
   * rather than several.
   */
  quietMs: number;
  /** No change waits longer than this (a long burst goes out in parts). */
  maxHoldMs: number;
}

/**
 * When the live feed's next delta is due, decided on each flush from the
 * number of changes waiting (FleetState.pendingChanges). The changes of a
 * burst go out together shortly after its last one, and none waits more
 * than `maxHoldMs` after the flush that first saw it. A fixed spacing
 * between deltas instead held the tail of each second's burst back by up to
 * the spacing (docs/live-protocol.md).
 */
export class DeltaPacer {
  /** When the flushes first saw a change waiting, and when the count of changes last grew. */
  private firstSeenAt: number | null = null;
  private lastGrowthAt = 0;
  private lastCount = 0;

  constructor(private readonly options: DeltaPacerOptions) {}

  /** Whether the delta should go now, given the changes waiting at `now`. */
  due(pending: number, now: number): boolean {
    if (pending === 0) {
      this.firstSeenAt = null;
      this.lastCount = 0;
      return false;
    }
    if (this.firstSeenAt === null) {
      this.firstSeenAt = now;
      this.lastGrowthAt = now;
    } else if (pending !== this.lastCount) {
      this.lastGrowthAt = now;
    }
    this.lastCount = pending;
    return now - this.lastGrowthAt >= this.options.quietMs || now - this.firstSeenAt >= this.options.maxHoldMs;
  }

  /** A delta went out (also one sent at once, after a snapshot). */
  sent(): void {
    this.firstSeenAt = null;
    this.lastCount = 0;
  }
}
