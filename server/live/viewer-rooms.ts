/**
 * socket.io rooms on /live that address one person: every connection of a
 * signed-in viewer joins theirs (server/alerts/alerts-live.ts does it at
 * connection), so that what concerns them reaches every page they have open.
 */
export function viewerRoom(userId: string): string {
  return `viewer:${userId}`;
}
