/** A row of a booking's part as lists read it: its id, and for a part of a booking across nodes its booking and rank. */
export interface PartRow {
  id: string;
  groupId: string | null;
  nodeRank: number | null;
}

/** Rows of parts read for a list, seen as whole bookings. */
export interface WholeBookings<T extends PartRow> {
  /** Whether the row stands for its booking: a one-host booking, or the node-0 part of one across nodes (a booking is told, listed or warned once, by it). */
  standsForBooking(row: T): boolean;
  /** Every part of the row's booking among the rows, in rank order; null for a one-host booking. */
  partsOf(row: T): T[] | null;
}

/**
 * The rows as whole bookings: the one place a list of bookings (calendar
 * feed, reminders, idle warnings) learns how a booking across nodes is
 * stored (parts tied by the node-0 part's id, each with its rank).
 */
export function wholeBookingsOf<T extends PartRow>(rows: T[]): WholeBookings<T> {
  const groups = new Map<string, T[]>();
  for (const row of rows) if (row.groupId) groups.set(row.groupId, [...(groups.get(row.groupId) ?? []), row]);
  for (const parts of groups.values()) parts.sort((a, b) => (a.nodeRank ?? 0) - (b.nodeRank ?? 0));
  return {
    standsForBooking: (row) => !row.groupId || row.id === row.groupId,
    partsOf: (row) => (row.groupId ? (groups.get(row.groupId) ?? null) : null),
  };
}
