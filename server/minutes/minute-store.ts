import { Prisma, type PrismaClient } from "@prisma/client";
import { chunks } from "@/lib/chunks";
import { quoted, rowsSelect } from "@/server/core/json-rows";
import { sqlDialect } from "@/server/core/sql-dialect";
import { decodeMinuteBlock, decodeMinuteColumns, encodeMinuteBlock, MinuteBlockError, type MinuteColumns } from "@/server/minutes/minute-block";
import { noteSetAside, noteUnreadable, type UnreadableBlock } from "@/server/minutes/unreadable-blocks";
import { HOUR_MS, floorTo, type MinuteRow } from "@/server/minutes/minute-row";

/**
 * The one module that reads, writes and prunes the stored minutes:
 * GpuMinuteBlock rows, a GPU-hour of minutes each, packed by minute-block.ts.
 * Reads decode them, a few dozen blocks per turn of the event loop; writes
 * fold minutes into their blocks (`foldIntoBlocks`, under the rollups'
 * write lock that server/history/rollup-store.ts takes); the retention pass
 * (server/history/retention.ts) prunes whole blocks; a block that cannot be
 * read is set aside. No other module names the table
 * (scripts/import-graph.test.ts fails where one does).
 */

export type Client = PrismaClient | Prisma.TransactionClient;

/**
 * Blocks decoded (or merged and encoded) between two turns of the event
 * loop: a block takes a few hundred µs, so a page of them would hold the
 * loop for a request's worth; 50 are some 10–30 ms on a loaded machine.
 */
export const DECODES_PER_TURN = 50;
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Which blocks to read: those whose hour starts in [fromMs, toMs), of these GPUs or of all. */
export interface BlockSpan {
  fromMs: number;
  toMs: number;
  gpuUuids?: readonly string[];
}

/** The blocks of one GPU-hour (`hourMs`), of these GPUs or all. */
export const hourSpan = (hourMs: number, gpuUuids?: readonly string[]): BlockSpan => ({ fromMs: hourMs, toMs: hourMs + HOUR_MS, gpuUuids });

interface StoredBlock {
  gpuUuid: string;
  hourMs: number;
  data: Buffer;
}

/**
 * The stored blocks of any of these spans, their bytes read as hex text: the
 * driver adapters hand a Bytes column on as an array of one number per byte
 * (`Array.from(new Uint8Array(…))`, both of Prisma 6.19's adapters), which
 * Prisma turns back into a buffer through base64, a quarter of a day's usage
 * report's CPU with the garbage it makes (docs/benchmark.md, issue 52); hex
 * is decoded natively.
 */
async function fetchBlocks(client: Client, spans: readonly BlockSpan[]): Promise<StoredBlock[]> {
  const wanted = spans.filter((span) => span.toMs > span.fromMs && (span.gpuUuids === undefined || span.gpuUuids.length > 0));
  if (wanted.length === 0) return [];
  const where = wanted.map((span) => {
    const gpus = span.gpuUuids ? Prisma.sql` AND "gpuUuid" IN (${Prisma.join(span.gpuUuids)})` : Prisma.empty;
    return Prisma.sql`("hour" >= ${new Date(span.fromMs)} AND "hour" < ${new Date(span.toMs)}${gpus})`;
  });
  const hex = Prisma.raw(sqlDialect() === "postgresql" ? `encode("data", 'hex')` : `hex("data")`);
  const rows = await client.$queryRaw<{ gpuUuid: string; hour: Date | string; hex: string }[]>`
    SELECT "gpuUuid", "hour", ${hex} AS "hex" FROM "GpuMinuteBlock" WHERE ${Prisma.join(where, " OR ")}`;
  return rows.map((row) => ({ gpuUuid: row.gpuUuid, hourMs: new Date(row.hour).getTime(), data: Buffer.from(row.hex, "hex") }));
}

/**
 * The stored blocks of these spans, decoded, by GPU. A block that
 * cannot be read is left out (noted and logged, unreadable-blocks.ts) and,
 * when `unreadable` is given, added to it, for a writer to set aside: one
 * bad GPU-hour never stops the others.
 */
export async function readBlocks(client: Client, spans: readonly BlockSpan[], unreadable?: UnreadableBlock[]): Promise<Map<string, MinuteRow[]>> {
  const blocks = await fetchBlocks(client, spans);
  const byGpu = new Map<string, MinuteRow[]>();
  for (const [i, block] of blocks.entries()) {
    if (i > 0 && i % DECODES_PER_TURN === 0) await nextTurn();
    let rows: MinuteRow[];
    try {
      rows = decodeMinuteBlock(block.gpuUuid, block.hourMs, block.data);
    } catch (error) {
      if (!(error instanceof MinuteBlockError)) throw error;
      const bad = { gpuUuid: block.gpuUuid, hourMs: block.hourMs, data: block.data, reason: error.message };
      noteUnreadable(bad);
      unreadable?.push(bad);
      continue;
    }
    const list = byGpu.get(block.gpuUuid);
    if (list) list.push(...rows);
    else byGpu.set(block.gpuUuid, rows);
  }
  return byGpu;
}

/** Blocks `readMinutePages` reads at once, about: six hours of 160 GPUs, a few hundred KB to decode. */
const BLOCKS_PER_PAGE = 960;
/** Hours a page spans when every GPU is read, whatever their number. */
const HOURS_PER_PAGE = 6;

/**
 * The stored minutes in [fromMs, toMs), of the given GPUs or all, a few
 * whole hours at a time (all of an hour's GPUs in one page), so that a
 * reader of a long range never holds it all in memory.
 */
export async function* readMinutePages(client: Client, fromMs: number, toMs: number, gpuUuids?: string[]): AsyncGenerator<MinuteRow[]> {
  const gpus = gpuUuids ? { gpuUuid: { in: gpuUuids } } : {};
  // A few GPUs' long range (a booking of a week) in a page or two rather than one per six hours.
  const pageMs = (gpuUuids ? Math.max(HOURS_PER_PAGE, Math.floor(BLOCKS_PER_PAGE / Math.max(1, gpuUuids.length))) : HOURS_PER_PAGE) * HOUR_MS;
  let hourMs = floorTo(fromMs, HOUR_MS);
  while (hourMs < toMs) {
    // From the next stored hour: a long range with little kept (a booking of months) costs a query a page, not one per empty hour.
    const next = await client.gpuMinuteBlock.findFirst({ where: { hour: { gte: new Date(hourMs), lt: new Date(toMs) }, ...gpus }, orderBy: { hour: "asc" }, select: { hour: true } });
    if (!next) return;
    hourMs = next.hour.getTime();
    const untilMs = Math.min(toMs, hourMs + pageMs);
    const blocks = await readBlocks(client, [{ fromMs: hourMs, toMs: untilMs, gpuUuids }]);
    hourMs = untilMs;
    const rows = [...blocks.values()].flat().filter((row) => row.minute.getTime() >= fromMs && row.minute.getTime() < toMs);
    if (rows.length > 0) yield rows;
  }
}

/** The stored minutes in [fromMs, toMs), of the given GPUs or all. */
export async function readMinutes(client: Client, fromMs: number, toMs: number, gpuUuids?: string[]): Promise<MinuteRow[]> {
  const rows: MinuteRow[] = [];
  for await (const page of readMinutePages(client, fromMs, toMs, gpuUuids)) rows.push(...page);
  return rows;
}


/**
 * Every GPU's stored blocks over [fromMs, toMs), a few whole hours a page,
 * as columns (`decodeMinuteColumns`): what the usage sums read, with no row
 * object per minute. A block that cannot be read is left out and noted.
 */
export async function* readColumnPages(client: Client, fromMs: number, toMs: number): AsyncGenerator<MinuteColumns[]> {
  let hourMs = floorTo(fromMs, HOUR_MS);
  while (hourMs < toMs) {
    const next = await client.gpuMinuteBlock.findFirst({ where: { hour: { gte: new Date(hourMs), lt: new Date(toMs) } }, orderBy: { hour: "asc" }, select: { hour: true } });
    if (!next) return;
    hourMs = next.hour.getTime();
    const untilMs = Math.min(toMs, hourMs + HOURS_PER_PAGE * HOUR_MS);
    const blocks = await fetchBlocks(client, [{ fromMs: hourMs, toMs: untilMs }]);
    hourMs = untilMs;
    const page: MinuteColumns[] = [];
    // Columns decode in tens of µs, rows in hundreds: more of them between two turns.
    for (const part of chunks(blocks, 4 * DECODES_PER_TURN)) {
      if (page.length > 0) await nextTurn();
      page.push(...decodeColumns(part));
    }
    if (page.length > 0) yield page;
  }
}

/** The stored blocks of these spans, as columns (`decodeMinuteColumns`), by GPU; a block that cannot be read is left out and noted. */
export async function readColumnBlocks(client: Client, spans: readonly BlockSpan[]): Promise<Map<string, MinuteColumns[]>> {
  const blocks = await fetchBlocks(client, spans);
  const byGpu = new Map<string, MinuteColumns[]>();
  const decoded: MinuteColumns[] = [];
  for (const part of chunks(blocks, 4 * DECODES_PER_TURN)) {
    if (decoded.length > 0) await nextTurn();
    decoded.push(...decodeColumns(part));
  }
  for (const block of decoded) {
    const list = byGpu.get(block.gpuUuid);
    if (list) list.push(block);
    else byGpu.set(block.gpuUuid, [block]);
  }
  return byGpu;
}

/** Blocks as columns, those that cannot be read left out and noted. */
function decodeColumns(blocks: StoredBlock[]): MinuteColumns[] {
  const decoded: MinuteColumns[] = [];
  for (const block of blocks) {
    try {
      decoded.push(decodeMinuteColumns(block.gpuUuid, block.hourMs, block.data));
    } catch (error) {
      if (!(error instanceof MinuteBlockError)) throw error;
      noteUnreadable({ gpuUuid: block.gpuUuid, hourMs: block.hourMs, data: block.data, reason: error.message });
    }
  }
  return decoded;
}

const BLOCK_COLUMNS = {
  gpuUuid: "text",
  hour: "timestamp(3)",
  data: "bytea",
} as const;

/** Blocks per statement: a block is a few hundred bytes to 2 KB, so a statement carries some hundreds of KB. */
const BLOCKS_PER_STATEMENT = 200;


interface Block {
  gpuUuid: string;
  hour: Date;
  data: Uint8Array;
}

/** Minute rows by hour, then by GPU, each GPU's in minute order. */
export function byHourAndGpu(rows: readonly MinuteRow[]): Map<number, Map<string, MinuteRow[]>> {
  const hours = new Map<number, Map<string, MinuteRow[]>>();
  for (const row of rows) {
    const hourMs = floorTo(row.minute.getTime(), HOUR_MS);
    let gpus = hours.get(hourMs);
    if (!gpus) hours.set(hourMs, (gpus = new Map()));
    const list = gpus.get(row.gpuUuid);
    if (list) list.push(row);
    else gpus.set(row.gpuUuid, [row]);
  }
  for (const gpus of hours.values()) for (const list of gpus.values()) list.sort((a, b) => a.minute.getTime() - b.minute.getTime());
  return hours;
}

/** Writes whole blocks, replacing what was stored for their GPU-hours. */
async function writeBlocks(client: Client, blocks: Block[]): Promise<void> {
  for (const part of chunks(blocks, BLOCKS_PER_STATEMENT)) {
    await client.$executeRaw`INSERT INTO "GpuMinuteBlock" (${quoted(BLOCK_COLUMNS)}) ${rowsSelect(part, BLOCK_COLUMNS)}
ON CONFLICT ("gpuUuid", "hour") DO UPDATE SET "data" = excluded."data"`;
  }
}


/**
 * Folds minutes into their stored blocks: reads the blocks they touch,
 * `combine`s each minute already stored with the new one, writes the blocks
 * back in one statement per batch, and answers the written minutes as
 * stored (Float32 measures), so that an hour made of them is made of exactly
 * the stored numbers. A read before a write: call it inside a transaction
 * that holds the rollups' write lock (server/history/rollup-store.ts,
 * `claimWriteLock`), so that two writers of one block never both read it
 * before either writes. A stored block that cannot be read is set aside and
 * its GPU-hour written anew from these minutes.
 */
export async function foldIntoBlocks(client: Prisma.TransactionClient, rows: MinuteRow[], combine: (stored: MinuteRow, incoming: MinuteRow) => MinuteRow): Promise<MinuteRow[]> {
  const written: MinuteRow[] = [];
  for (const [hourMs, gpus] of byHourAndGpu(rows)) {
    for (const part of chunks([...gpus.keys()], BLOCKS_PER_STATEMENT)) {
      const unreadable: UnreadableBlock[] = [];
      const stored = await readBlocks(client, [hourSpan(hourMs, part)], unreadable);
      // A block that cannot be read is kept aside and its GPU-hour starts again from these minutes: the other GPUs' blocks are written.
      await setAsideBlocks(client, unreadable);
      const blocks: Block[] = [];
      for (const [i, uuid] of part.entries()) {
        if (i > 0 && i % DECODES_PER_TURN === 0) await nextTurn();
        const minutes = new Map(stored.get(uuid)?.map((row) => [row.minute.getTime(), row]));
        for (const row of gpus.get(uuid)!) {
          const old = minutes.get(row.minute.getTime());
          minutes.set(row.minute.getTime(), old ? combine(old, row) : row);
        }
        const block = { gpuUuid: uuid, hour: new Date(hourMs), data: encodeMinuteBlock(hourMs, [...minutes.values()]) };
        blocks.push(block);
        const touched = new Set(gpus.get(uuid)!.map((row) => row.minute.getTime()));
        written.push(...decodeMinuteBlock(uuid, hourMs, block.data).filter((row) => touched.has(row.minute.getTime())));
      }
      await writeBlocks(client, blocks);
    }
  }
  return written;
}

/**
 * Moves unreadable blocks out of GpuMinuteBlock into GpuMinuteBlockSetAside,
 * in the caller's transaction (a writer about to replace the block, or the
 * retention pass about to delete its hour), which holds the write lock:
 * nobody rewrote the block since it was read. Logs each with its GPU and hour.
 */
export async function setAsideBlocks(tx: Client, blocks: readonly UnreadableBlock[]): Promise<void> {
  if (blocks.length === 0) return;
  for (const block of blocks) {
    const hour = new Date(block.hourMs);
    await tx.gpuMinuteBlockSetAside.create({ data: { gpuUuid: block.gpuUuid, hour, data: Buffer.from(block.data), reason: block.reason.slice(0, 500) } });
    await tx.gpuMinuteBlock.deleteMany({ where: { gpuUuid: block.gpuUuid, hour } });
  }
  for (const block of blocks) noteSetAside(block);
}

/** The first stored minute (ms), of any GPU; null when none is. */
export async function firstStoredMinute(client: Client): Promise<number | null> {
  const first = await client.gpuMinuteBlock.findFirst({ orderBy: { hour: "asc" }, select: { hour: true } });
  if (!first) return null;
  const hourMs = first.hour.getTime();
  const minutes = (await readMinutes(client, hourMs, hourMs + HOUR_MS)).map((row) => row.minute.getTime());
  // The hour's blocks all unreadable: its start stands for them.
  return minutes.length > 0 ? Math.min(...minutes) : hourMs;
}

/** The oldest hour with minutes stored before `beforeMs` (ms); null when none is: where the retention pass starts. */
export async function oldestHourBefore(client: Client, beforeMs: number): Promise<number | null> {
  const oldest = await client.gpuMinuteBlock.findFirst({ where: { hour: { lt: new Date(beforeMs) } }, orderBy: { hour: "asc" }, select: { hour: true } });
  return oldest ? oldest.hour.getTime() : null;
}

/** The GPUs that have minutes stored in this hour, in UUID order. */
export async function gpusWithMinutes(client: Client, hourMs: number): Promise<string[]> {
  const found = await client.gpuMinuteBlock.findMany({ where: { hour: new Date(hourMs) }, select: { gpuUuid: true }, orderBy: { gpuUuid: "asc" } });
  return found.map((row) => row.gpuUuid);
}

/** Deletes these GPUs' minutes of one hour (the retention pass, under the write lock); answers how many blocks went. */
export async function pruneMinuteBlocks(tx: Prisma.TransactionClient, hourMs: number, gpuUuids: string[]): Promise<number> {
  const { count } = await tx.gpuMinuteBlock.deleteMany({ where: { hour: new Date(hourMs), gpuUuid: { in: gpuUuids } } });
  return count;
}
