import { UsageError } from "@/host/cli-client/cli-errors";

/**
 * Parsers of the CLI client's option values. Pure, so that what a person may
 * type is pinned by unit tests: durations ("90m", "4h", "1d12h"), memory
 * sizes ("40G", "512M") and GPU lists ("0,1").
 */

const DURATION_UNITS: Record<string, number> = { m: 1, min: 1, h: 60, d: 24 * 60, w: 7 * 24 * 60 };

/** "4h", "90m", "1h30m", "2d" → whole minutes; a bare number counts minutes. */
export function parseDurationMinutes(text: string): number {
  const value = text.trim().toLowerCase();
  if (/^\d+$/.test(value)) return positive(Number(value), text);
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)\s*(min|m|h|d|w)/g)];
  const consumed = parts.map((part) => part[0]).join("");
  if (parts.length === 0 || consumed.replace(/\s/g, "") !== value.replace(/\s/g, "")) {
    throw new UsageError(`"${text}" is not a duration: use e.g. 90m, 4h, 1h30m or 2d`);
  }
  const minutes = parts.reduce((sum, part) => sum + Number(part[1]) * DURATION_UNITS[part[2]], 0);
  return positive(Math.round(minutes), text);
}

function positive(minutes: number, text: string): number {
  if (!Number.isFinite(minutes) || minutes < 1) throw new UsageError(`"${text}" is shorter than a minute`);
  return minutes;
}

const MEMORY_UNITS: Record<string, number> = { m: 1, mi: 1, mib: 1, mb: 1, g: 1024, gi: 1024, gib: 1024, gb: 1024, t: 1024 * 1024, ti: 1024 * 1024, tib: 1024 * 1024, tb: 1024 * 1024 };

/**
 * "40G", "40GiB", "512M", "1.5T" → MiB; a bare number counts MiB, as
 * nvidia-smi reports memory. G and GB mean GiB, as people mean them for GPUs.
 */
export function parseMemoryMiB(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = match?.[2].toLowerCase() ?? "";
  if (!match || (unit !== "" && MEMORY_UNITS[unit] === undefined)) {
    throw new UsageError(`"${text}" is not a memory size: use e.g. 40G or 512M`);
  }
  return Math.round(Number(match[1]) * (unit === "" ? 1 : MEMORY_UNITS[unit]));
}

/** "0,1" or "0 1" → [0, 1]: nvidia-smi indices, each once. */
export function parseGpuList(text: string): number[] {
  const items = text.split(/[,\s]+/).filter(Boolean);
  if (items.length === 0 || items.some((item) => !/^\d+$/.test(item))) {
    throw new UsageError(`"${text}" is not a list of GPU indices: use e.g. 0,1`);
  }
  const indices = items.map(Number);
  if (new Set(indices).size !== indices.length) throw new UsageError(`GPU ${text} lists a GPU twice`);
  return indices;
}

/** "0:1,0:2": MIG slices as GPU:MIG device. */
export function parseSliceList(text: string): string[] {
  const items = text.split(/[,\s]+/).filter(Boolean);
  if (items.length === 0 || items.some((item) => !/^\d{1,4}:\d{1,4}$/.test(item))) {
    throw new UsageError(`"${text}" is not a list of MIG slices: use GPU:MIG device, e.g. 0:1,0:2`);
  }
  if (new Set(items).size !== items.length) throw new UsageError(`${text} lists a slice twice`);
  return items;
}

/** A whole number of GPUs, at least 1. */
export function parseCount(text: string, what = "GPUs"): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1) throw new UsageError(`"${text}" is not a number of ${what}`);
  return Number(text);
}

/**
 * `--until`: an ISO time ("2026-11-30T18:00Z"), or a wall-clock time "18:00"
 * in the local zone, meaning the next such time after `now`.
 */
export function parseUntil(text: string, now: Date): Date {
  const clock = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (clock) {
    const [hours, minutes] = [Number(clock[1]), Number(clock[2])];
    if (hours > 23 || minutes > 59) throw new UsageError(`"${text}" is not a time of day`);
    const end = new Date(now);
    end.setHours(hours, minutes, 0, 0);
    if (end.getTime() <= now.getTime()) end.setDate(end.getDate() + 1);
    return end;
  }
  const ms = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim()) || Number.isNaN(ms)) {
    throw new UsageError(`"${text}" is not a time: use e.g. 18:00 or 2026-11-30T18:00:00Z`);
  }
  if (ms <= now.getTime()) throw new UsageError(`${text} has passed`);
  return new Date(ms);
}

/** `--for` and `--until` as the API's end fields; exactly one is needed. */
export function endFields(options: { for?: string; until?: string }, now: Date): { durationMinutes: number } | { endsAt: string } {
  if (options.for !== undefined && options.until !== undefined) throw new UsageError("Give --for or --until, not both");
  if (options.until !== undefined) return { endsAt: parseUntil(options.until, now).toISOString() };
  if (options.for !== undefined) return { durationMinutes: parseDurationMinutes(options.for) };
  throw new UsageError("Say how long you need the GPUs: --for 4h or --until 18:00");
}
