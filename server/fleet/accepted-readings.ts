import type { Snapshot } from "@/lib/domain/snapshot";

/** A reading an agent connected to this instance sent and the ingest accepted. */
export interface AcceptedReading {
  host: { id: string; simulated: boolean };
  snapshot: Snapshot;
}

/**
 * The readings this instance's agents sent since the tick last took them,
 * live or replayed, in the order the ingest accepted them: the tick hands
 * them to its consumers in its view (server/tick/tick-view.ts `readings`),
 * so that the minute rollups get the numbers and the people of a second in
 * one place. Readings relayed from other instances never come here (each
 * instance records its own agents).
 */
export class AcceptedReadings {
  private list: AcceptedReading[] = [];
  /** Readings given up because no tick took them (see `add`). */
  dropped = 0;

  /**
   * A tick that cannot build its view leaves the readings for the next
   * one; should none take them for long (a reconciliation failing every
   * second, logged there), the oldest half goes rather than memory without end.
   */
  constructor(private readonly maxKept = 100_000) {}

  add(host: AcceptedReading["host"], snapshot: Snapshot): void {
    if (this.list.length >= this.maxKept) {
      const half = Math.ceil(this.maxKept / 2);
      this.list.splice(0, half);
      this.dropped += half;
    }
    this.list.push({ host, snapshot });
  }

  /** What came since the last take, oldest first; empties the list. */
  take(): AcceptedReading[] {
    const taken = this.list;
    if (taken.length > 0) this.list = [];
    return taken;
  }
}
