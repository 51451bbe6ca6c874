/**
 * Durations as people write them in configuration: "500ms", "30s", "5m",
 * "2h", "1d"; a bare number is seconds. Shared by the server's environment
 * and the pages that show the configured values.
 */

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Milliseconds, or null for text that is not a duration. */
export function parseDurationText(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) return null;
  const ms = Math.round(Number(match[1]) * UNIT_MS[(match[2] ?? "s") as keyof typeof UNIT_MS]);
  return Number.isFinite(ms) ? ms : null;
}

/** "45 s", "30 min", "2 h", "1 d 4 h": how long, for people. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return seconds % 60 === 0 || minutes >= 10 ? `${minutes} min` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}
