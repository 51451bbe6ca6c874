import type { LiveBooking } from "@/lib/live/live";
import { log } from "@/server/core/log";
import { onBookingsChanged } from "@/server/bookings/store/booking-events";
import { listLiveBookings } from "@/server/bookings/views/bookings-query";

/** Active and upcoming bookings and word of every change: what the /live endpoint and the alerts take from the bookings. */
export interface BookingsSource {
  current(): LiveBooking[];
  subscribe(listener: (bookings: LiveBooking[]) => void): () => void;
}

export interface BookingFeedOptions {
  now?: () => number;
  load?: (now: Date) => Promise<LiveBooking[]>;
  /**
   * Longest sleep between two reads. Bookings written by another process
   * (a second server, a CLI on the same database) show up within this.
   */
  maxSleepMs?: number;
}

/**
 * Active and upcoming bookings, kept fresh: read again whenever a service
 * announces a change, and woken by a timer at the next start or end, so
 * that bookings start and end on every open page by themselves.
 */
export class BookingFeed implements BookingsSource {
  private bookings: LiveBooking[] = [];
  private signature = "";
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private unsubscribe: (() => void) | null = null;
  private readonly listeners = new Set<(bookings: LiveBooking[]) => void>();
  private readonly now: () => number;
  private readonly load: (now: Date) => Promise<LiveBooking[]>;
  private readonly maxSleepMs: number;

  constructor(options: BookingFeedOptions = {}) {
    this.now = options.now ?? Date.now;
    this.load = options.load ?? ((now) => listLiveBookings(now));
    this.maxSleepMs = options.maxSleepMs ?? 60_000;
  }

  /** Reads the bookings once, then follows announcements and the clock. */
  async start(): Promise<void> {
    await this.refresh();
    this.unsubscribe = onBookingsChanged(() => void this.refresh());
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.listeners.clear();
  }

  current(): LiveBooking[] {
    return this.bookings;
  }

  subscribe(listener: (bookings: LiveBooking[]) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Reads again; announcements that arrive during a read cause one more read, not one each. */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.readOnce();
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async readOnce(): Promise<void> {
    if (this.stopped) return;
    const nowMs = this.now();
    try {
      const bookings = await this.load(new Date(nowMs));
      // Which bookings have started is part of what changed: a start is news even if the list is the same.
      const started = bookings.map((booking) => Date.parse(booking.startsAt) <= nowMs);
      const signature = JSON.stringify([bookings, started]);
      if (signature !== this.signature) {
        this.signature = signature;
        this.bookings = bookings;
        for (const listener of this.listeners) listener(bookings);
      }
    } catch (error) {
      log.error(`could not read the bookings: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.scheduleWake(nowMs);
  }

  private scheduleWake(nowMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    let next = nowMs + this.maxSleepMs;
    for (const booking of this.bookings) {
      for (const boundary of [Date.parse(booking.startsAt), Date.parse(booking.endsAt)]) {
        if (boundary > nowMs && boundary < next) next = boundary;
      }
    }
    // A little after the boundary, so that the read sees the booking on the far side of it.
    this.timer = setTimeout(() => void this.refresh(), Math.max(0, next - nowMs) + 5);
    this.timer.unref?.();
  }
}

/** The server's feed: started before the /live endpoint takes connections. */
export async function startBookingFeed(options: BookingFeedOptions = {}): Promise<BookingFeed> {
  const feed = new BookingFeed(options);
  await feed.start();
  return feed;
}
