/**
 * Pure parsers for the text formats of /proc/<pid>/{stat,status,cmdline,environ}
 * and /proc/stat. They never throw: a malformed file yields null, because the
 * kernel's formats are stable and anything else means we read something odd
 * (a truncated read, a non-Linux /proc) that should not stop the collector.
 */

import { cleanBookingValue } from "@/lib/domain/booking-claim";

export const MAX_COMMAND_LENGTH = 4096;

// C0 controls and DEL: argv and comm may legally contain newlines or escape
// sequences, which would break one-line displays and terminal output.
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/g;

export interface StatFields {
  /** The comm field (thread name), without the surrounding parentheses. */
  comm: string;
  /** Field 22: start time in clock ticks since boot. */
  startTicks: number;
}

/**
 * Parses /proc/<pid>/stat. The comm field may itself contain spaces and
 * parentheses (a process can name itself "a) (b"), so it spans from the first
 * "(" to the last ")"; the numeric fields follow the last ")".
 */
export function parseStat(text: string): StatFields | null {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const comm = text.slice(open + 1, close);
  // After the comm come fields 3 (state) onwards, so field N is at N - 3.
  const rest = text.slice(close + 1).trim().split(/\s+/);
  const raw = rest[22 - 3];
  if (raw === undefined || !/^\d+$/.test(raw)) return null;
  const startTicks = Number(raw);
  if (!Number.isSafeInteger(startTicks)) return null;
  return { comm, startTicks };
}

/** The `btime` line of /proc/stat: boot time in seconds since the epoch. */
export function parseBootTime(text: string): number | null {
  const match = /^btime\s+(\d+)\s*$/m.exec(text);
  if (!match) return null;
  const seconds = Number(match[1]);
  return Number.isSafeInteger(seconds) ? seconds : null;
}

/** The real uid (first column of `Uid:`) from /proc/<pid>/status. */
export function parseRealUid(text: string): number | null {
  const match = /^Uid:\s+(\d+)/m.exec(text);
  if (!match) return null;
  const uid = Number(match[1]);
  // 2^32-1 is (uid_t)-1, "no uid"; it never names an owner.
  return Number.isSafeInteger(uid) && uid < 0xffffffff ? uid : null;
}

/**
 * Turns NUL-separated argv into one display line, bounded to
 * MAX_COMMAND_LENGTH UTF-16 units (the schema's unit). Empty for kernel
 * threads and zombies, which have no user memory to show argv from.
 */
export function parseCmdline(raw: Buffer): string | null {
  const text = sanitizeLine(raw.toString("utf8"));
  return text === "" ? null : boundText(text, MAX_COMMAND_LENGTH);
}

/** Fallback command for processes without argv, shown the way ps shows them. */
export function bracketedName(comm: string): string | null {
  const name = sanitizeLine(comm);
  return name === "" ? null : boundText(`[${name}]`, MAX_COMMAND_LENGTH);
}

/**
 * The first value of `name` in a NUL-separated environ block (what getenv
 * would return). Null when absent.
 */
export function findEnvironValue(raw: Buffer, name: string): string | null {
  const prefix = `${name}=`;
  for (const entry of raw.toString("utf8").split("\0")) {
    if (entry.startsWith(prefix)) return entry.slice(prefix.length);
  }
  return null;
}

/**
 * The `GPUDESK_RESERVATION` value as the agent reports it (`<id>.<proof>`,
 * checked by the server), or null when it is not one gpudesk issues.
 */
export const parseBookingId = cleanBookingValue;

function sanitizeLine(text: string): string {
  return text.replace(CONTROL_CHARS, " ").trim();
}

/** Cuts to `max` UTF-16 units without leaving half of a surrogate pair. */
export function boundText(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut;
}
