import type { Prisma, PrismaClient } from "@prisma/client";
import { log } from "@/server/core/log";

/**
 * Minute blocks that cannot be read (corrupt bytes, a newer gpudesk's
 * version after a downgrade, a deflate bomb): each costs its own GPU-hour
 * of minute detail and nothing else. A read leaves it out and notes it here
 * (logged once, with its GPU and hour); a writer or the retention pass that
 * meets it moves it to GpuMinuteBlockSetAside, where it is kept for an admin
 * and no longer in anyone's way. /api/health counts both.
 */

type Client = PrismaClient | Prisma.TransactionClient;

export interface UnreadableBlock {
  gpuUuid: string;
  hourMs: number;
  data: Uint8Array;
  reason: string;
}

/** A GPU-hour whose minutes a report had to leave out, and why. */
export interface LeftOutBlock {
  gpuUuid: string;
  hourMs: number;
  reason: string;
}

interface Registry {
  /** Met by a read and not yet set aside, by GPU and hour. */
  unreadable: Map<string, LeftOutBlock>;
  /** Set aside by this process since it started (the table holds every instance's). */
  setAside: number;
}

/** On globalThis: the custom server's flush and Next's route bundles (reports, /api/health) load this module apart. */
function registry(): Registry {
  const shared = globalThis as unknown as { __gpudeskUnreadableMinuteBlocks?: Registry };
  shared.__gpudeskUnreadableMinuteBlocks ??= { unreadable: new Map(), setAside: 0 };
  return shared.__gpudeskUnreadableMinuteBlocks;
}

const keyOf = (gpuUuid: string, hourMs: number) => `${gpuUuid}\u0000${hourMs}`;

/** Notes a block a read could not decode; logs it the first time. */
export function noteUnreadable(block: UnreadableBlock): void {
  const known = registry().unreadable;
  const key = keyOf(block.gpuUuid, block.hourMs);
  if (known.has(key)) return;
  known.set(key, { gpuUuid: block.gpuUuid, hourMs: block.hourMs, reason: block.reason });
  log.error(`minute block of GPU ${block.gpuUuid} at ${new Date(block.hourMs).toISOString()} cannot be read, its minutes are left out: ${block.reason}`);
}

/** A block set aside (server/minutes/minute-store.ts, `setAsideBlocks`): no longer met unreadable, counted, logged with its GPU and hour. */
export function noteSetAside(block: UnreadableBlock): void {
  registry().unreadable.delete(keyOf(block.gpuUuid, block.hourMs));
  registry().setAside += 1;
  log.error(`minute block of GPU ${block.gpuUuid} at ${new Date(block.hourMs).toISOString()} set aside (GpuMinuteBlockSetAside; the other GPU-hours go on): ${block.reason}`);
}

/**
 * The GPU-hours in [fromMs, toMs) whose minutes a read left out: those met
 * unreadable by this process and those set aside (by any instance).
 */
export async function leftOutBlocks(client: Client, fromMs: number, toMs: number): Promise<LeftOutBlock[]> {
  const found = new Map<string, LeftOutBlock>();
  const setAside = await client.gpuMinuteBlockSetAside.findMany({
    where: { hour: { gte: new Date(fromMs - 59 * 60_000), lt: new Date(toMs) } },
    select: { gpuUuid: true, hour: true, reason: true },
    orderBy: [{ hour: "asc" }, { gpuUuid: "asc" }],
    take: 1000,
  });
  for (const block of setAside) found.set(keyOf(block.gpuUuid, block.hour.getTime()), { gpuUuid: block.gpuUuid, hourMs: block.hour.getTime(), reason: block.reason });
  for (const [key, block] of registry().unreadable) if (block.hourMs + 60 * 60_000 > fromMs && block.hourMs < toMs) found.set(key, block);
  return [...found.values()].sort((a, b) => a.hourMs - b.hourMs || a.gpuUuid.localeCompare(b.gpuUuid));
}

/** For /api/health: blocks met unreadable and not yet set aside, and those this process set aside. */
export function unreadableBlockCounts(): { unreadable: number; setAside: number } {
  return { unreadable: registry().unreadable.size, setAside: registry().setAside };
}
