/**
 * Readings waiting to reach the server, oldest first. Bounded: when full,
 * the oldest reading is dropped and counted, so that the server can be told
 * how many samples a long outage cost.
 */
export class SampleBuffer<T> {
  private items: T[] = [];
  private droppedCount = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error("buffer capacity must be a positive integer");
  }

  push(item: T): void {
    this.items.push(item);
    if (this.items.length > this.capacity) {
      const excess = this.items.length - this.capacity;
      this.items.splice(0, excess);
      this.droppedCount += excess;
    }
  }

  /**
   * Drops readings from the head while `stale` holds for them, counted as
   * dropped (readings the server would refuse as too old to be true).
   */
  dropStale(stale: (item: T) => boolean): void {
    let count = 0;
    while (count < this.items.length && stale(this.items[count])) count += 1;
    this.items.splice(0, count);
    this.droppedCount += count;
  }

  /** The oldest `count` readings, left in the buffer until `remove` confirms delivery. */
  peek(count: number): T[] {
    return this.items.slice(0, count);
  }

  /**
   * Removes readings the server acknowledged. `delivered` are the very items
   * returned by `peek`: if the buffer overflowed meanwhile and some of them
   * were dropped, only those still at the head are removed.
   */
  remove(delivered: T[]): void {
    if (delivered.length === 0) return;
    // Normally the batch is still the head; after an overflow its first items may be gone already.
    this.items.splice(0, this.items.indexOf(delivered[delivered.length - 1]) + 1);
  }

  /** Drops counted since the last call; resets the count. */
  takeDropped(): number {
    const dropped = this.droppedCount;
    this.droppedCount = 0;
    return dropped;
  }

  /** Gives back a count that could not be reported (the batch carrying it failed). */
  restoreDropped(count: number): void {
    this.droppedCount += count;
  }

  get size(): number {
    return this.items.length;
  }
}
