import { deflateRawSync, inflateRawSync } from "node:zlib";
import { MINUTE_MS, type MinuteRow } from "@/server/minutes/minute-row";

/**
 * One GPU-hour of minute rollups packed into the bytes of a GpuMinuteBlock
 * row: one row per GPU-hour instead of one per GPU-minute, because the row
 * (its text keys, header and index entries) cost more than its values
 * (docs/benchmark.md, "A year in little room").
 *
 * Layout: a version byte, then deflated (raw deflate):
 * - the strings the hour uses (host, booker and runner ids): a count byte,
 *   then each as a length byte and its UTF-8 bytes; a row refers to one by
 *   its position from 1, 0 standing for null;
 * - which of the hour's 60 minutes are present, two little-endian u32
 *   (minutes 0–31, then 32–59);
 * - the present minutes column by column, in minute order: samples (u16),
 *   each of the eight measures as Float32 (NaN for null), host, booker and
 *   runner (u8 each), flags (u8: 1 busy, 2 simulated).
 * Column order puts like values side by side, which is what deflate
 * shortens. Float32 keeps 7 significant digits: every value nvidia-smi
 * reports (whole percent, MiB, °C, W to 2 decimals) and means close enough
 * that no figure shown changes.
 */

const VERSION = 1;
const MINUTES = 60;
/** Ids a block can name: a byte indexes them, 0 being null. Sixty minutes of three ids are at most 180. */
const MAX_STRINGS = 255;
const MAX_STRING_BYTES = 255;
const MAX_SAMPLES = 0xffff;

const MEASURES = ["utilAvg", "utilMax", "memUsedAvg", "memUsedMax", "memTotal", "powerAvg", "tempAvg", "tempMax"] as const;
const BUSY = 1;
const SIMULATED = 2;

/**
 * The most bytes a block of this version holds once inflated: every id at
 * its longest, all 60 minutes. Inflating stops there, so a block crafted to
 * inflate to gigabytes (a deflate bomb) costs at most this much memory and
 * the time to inflate it, a fraction of a millisecond.
 */
const MAX_INFLATED_BYTES = 1 + MAX_STRINGS * (1 + MAX_STRING_BYTES) + 8 + MINUTES * (2 + 4 * MEASURES.length + 4);
/**
 * The output buffer zlib starts with: an hour of 60 minutes with a few ids
 * inflates to some 2.6 KB, so one such buffer holds a block, not zlib's
 * default of 16 KiB, allocated again for each of the thousands of blocks a
 * day's usage report reads (its garbage was a quarter of that report's CPU,
 * docs/benchmark.md, issue 52). A larger block takes more than one; the
 * bytes are the same.
 */
const INFLATE_CHUNK_BYTES = 4096;
/** Deflate never grows its input by more than a few bytes per 16 KiB: a stored block longer than this is not one this code wrote. */
const MAX_STORED_BYTES = 1 + MAX_INFLATED_BYTES + 1024;

/** A block that cannot be read: corrupt bytes or a version this code does not know. */
export class MinuteBlockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MinuteBlockError";
  }
}

/**
 * Gives each distinct non-null string a number from 1 in order of first
 * use; refuses more than a byte can index, or one longer than a length byte.
 */
export function indexStrings(values: Iterable<string | null | undefined>): Map<string, number> {
  const index = new Map<string, number>();
  for (const value of values) {
    if (value === null || value === undefined || index.has(value)) continue;
    if (index.size === MAX_STRINGS) throw new RangeError(`a minute block names at most ${MAX_STRINGS} ids (host, booker, runner); this one has more`);
    if (Buffer.byteLength(value) > MAX_STRING_BYTES) throw new RangeError(`an id in a minute block is at most ${MAX_STRING_BYTES} bytes: ${value.slice(0, 40)}…`);
    index.set(value, index.size + 1);
  }
  return index;
}

/** Packs the minutes of one GPU-hour (all of one GPU and one hour, each minute at most once). */
export function encodeMinuteBlock(hourMs: number, rows: readonly MinuteRow[]): Uint8Array {
  const sorted = [...rows].sort((a, b) => a.minute.getTime() - b.minute.getTime());
  const offsets = sorted.map((row) => (row.minute.getTime() - hourMs) / MINUTE_MS);
  offsets.forEach((offset, i) => {
    if (!Number.isInteger(offset) || offset < 0 || offset >= MINUTES) throw new RangeError(`minute ${sorted[i]!.minute.toISOString()} is not a whole minute of the hour ${new Date(hourMs).toISOString()}`);
    if (i > 0 && offsets[i - 1] === offset) throw new RangeError(`minute ${sorted[i]!.minute.toISOString()} given twice`);
    if (sorted[i]!.gpuUuid !== sorted[0]!.gpuUuid) throw new RangeError("a minute block holds one GPU's minutes");
  });
  const strings = indexStrings(sorted.flatMap((row) => [row.hostId, row.bookedByUserId, row.runnerUserId]));
  const n = sorted.length;
  const stringBytes = [...strings.keys()].map((value) => Buffer.from(value));
  const size = 1 + stringBytes.reduce((sum, bytes) => sum + 1 + bytes.length, 0) + 8 + n * (2 + 4 * MEASURES.length + 4);
  const out = Buffer.alloc(size);
  let at = out.writeUInt8(strings.size, 0);
  for (const bytes of stringBytes) {
    at = out.writeUInt8(bytes.length, at);
    at += bytes.copy(out, at);
  }
  let low = 0;
  let high = 0;
  for (const offset of offsets) {
    if (offset < 32) low |= 1 << offset;
    else high |= 1 << (offset - 32);
  }
  at = out.writeUInt32LE(low >>> 0, at);
  at = out.writeUInt32LE(high >>> 0, at);
  for (const row of sorted) {
    if (!Number.isInteger(row.samples) || row.samples < 0 || row.samples > MAX_SAMPLES) throw new RangeError(`samples ${row.samples} out of range for a minute block`);
    at = out.writeUInt16LE(row.samples, at);
  }
  for (const measure of MEASURES) for (const row of sorted) at = out.writeFloatLE(row[measure] ?? Number.NaN, at);
  const ref = (value: string | null | undefined) => (value === null || value === undefined ? 0 : strings.get(value)!);
  for (const row of sorted) at = out.writeUInt8(ref(row.hostId), at);
  for (const row of sorted) at = out.writeUInt8(ref(row.bookedByUserId), at);
  for (const row of sorted) at = out.writeUInt8(ref(row.runnerUserId), at);
  for (const row of sorted) at = out.writeUInt8((row.busy ? BUSY : 0) | (row.simulated ? SIMULATED : 0), at);
  return Buffer.concat([Buffer.of(VERSION), deflateRawSync(out)]);
}

/** A block's bytes inflated, its version and size checked; throws MinuteBlockError. */
function inflateBlock(where: string, data: Uint8Array): Buffer {
  if (data.length === 0) throw new MinuteBlockError(`empty ${where}`);
  if (data[0] !== VERSION) throw new MinuteBlockError(`${where} has version ${data[0]}, this gpudesk reads version ${VERSION}`);
  if (data.length > MAX_STORED_BYTES) throw new MinuteBlockError(`${where} is ${data.length} bytes, more than any hour of minutes (${MAX_STORED_BYTES})`);
  try {
    return inflateRawSync(data.subarray(1), { maxOutputLength: MAX_INFLATED_BYTES, chunkSize: INFLATE_CHUNK_BYTES });
  } catch (error) {
    throw new MinuteBlockError(`corrupt ${where}: ${(error as Error).message}`);
  }
}

const whereOf = (gpuUuid: string, hourMs: number) => `minute block of ${gpuUuid} at ${new Date(hourMs).toISOString()}`;

/** Runs a reader of the inflated bytes, a read past the end or a bad reference being a corrupt block. */
function readInflated<T>(gpuUuid: string, hourMs: number, data: Uint8Array, read: (bytes: Buffer) => T): T {
  const where = whereOf(gpuUuid, hourMs);
  const bytes = inflateBlock(where, data);
  try {
    return read(bytes);
  } catch (error) {
    if (error instanceof RangeError) throw new MinuteBlockError(`corrupt ${where}: ${error.message}`);
    throw error;
  }
}

/** The minutes of one GPU-hour, in minute order, as `encodeMinuteBlock` was given them (measures to Float32). */
export function decodeMinuteBlock(gpuUuid: string, hourMs: number, data: Uint8Array): MinuteRow[] {
  return readInflated(gpuUuid, hourMs, data, (bytes) => readColumns(gpuUuid, hourMs, bytes));
}

/**
 * What the usage sums read of a block, column by column, without a row
 * object (nor a Date) per minute: which minutes are there, their mean
 * utilization (NaN for none), and per minute the host, booker and runner
 * (positions in `strings`, 0 for null) and flags (`isBusy`, `isSimulated`).
 */
export interface MinuteColumns {
  gpuUuid: string;
  hourMs: number;
  /** Minute of the hour (0–59) of each present minute, ascending. */
  offsets: Uint8Array;
  utilAvg: Float32Array;
  host: Uint8Array;
  booker: Uint8Array;
  runner: Uint8Array;
  flags: Uint8Array;
  /** The ids the block names; position 0 is null. */
  strings: (string | null)[];
}

export const isBusy = (flags: number) => (flags & BUSY) !== 0;
export const isSimulated = (flags: number) => (flags & SIMULATED) !== 0;

/** A block's columns for the usage sums (`MinuteColumns`); throws MinuteBlockError as `decodeMinuteBlock` does. */
export function decodeMinuteColumns(gpuUuid: string, hourMs: number, data: Uint8Array): MinuteColumns {
  return readInflated(gpuUuid, hourMs, data, (bytes) => {
    const { strings, offsets, at } = readHead(bytes);
    const n = offsets.length;
    const utilAt = at + 2 * n;
    const refsAt = utilAt + 4 * MEASURES.length * n;
    const utilAvg = floatColumn(bytes, utilAt, n);
    const column = (k: number) => new Uint8Array(bytes.buffer, bytes.byteOffset + refsAt + k * n, n);
    const columns = { gpuUuid, hourMs, offsets, utilAvg, host: column(0), booker: column(1), runner: column(2), flags: column(3), strings };
    for (const refs of [columns.host, columns.booker, columns.runner]) for (const ref of refs) if (ref >= strings.length) throw new RangeError(`no string ${ref}`);
    return columns;
  });
}

/** The platform's own byte order is little-endian, the blocks': a column of floats is then their bytes copied. */
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** `n` little-endian Float32 from `at`, in an array of their own (the bytes copied once, not read one by one). */
function floatColumn(bytes: Buffer, at: number, n: number): Float32Array {
  if (at + 4 * n > bytes.length) throw new RangeError("column past the end");
  const column = new Float32Array(n);
  if (LITTLE_ENDIAN) new Uint8Array(column.buffer).set(bytes.subarray(at, at + 4 * n));
  else for (let i = 0; i < n; i++) column[i] = bytes.readFloatLE(at + 4 * i);
  return column;
}

/** The head of an inflated block: its ids, which minutes are there, and where the columns start; checks the length. */
function readHead(bytes: Buffer): { strings: (string | null)[]; offsets: Uint8Array; at: number } {
  let at = 0;
  const strings: (string | null)[] = [null];
  const count = bytes.readUInt8(at++);
  for (let i = 0; i < count; i++) {
    const length = bytes.readUInt8(at++);
    if (at + length > bytes.length) throw new RangeError("string past the end");
    strings.push(bytes.toString("utf8", at, at + length));
    at += length;
  }
  const low = bytes.readUInt32LE(at);
  const high = bytes.readUInt32LE(at + 4);
  at += 8;
  const present: number[] = [];
  for (let m = 0; m < MINUTES; m++) if ((m < 32 ? low >>> m : high >>> (m - 32)) & 1) present.push(m);
  const n = present.length;
  if (bytes.length !== at + n * (2 + 4 * MEASURES.length + 4)) throw new RangeError(`${bytes.length} bytes for ${n} minutes`);
  return { strings, offsets: Uint8Array.from(present), at };
}

function readColumns(gpuUuid: string, hourMs: number, bytes: Buffer): MinuteRow[] {
  const head = readHead(bytes);
  const { strings } = head;
  const offsets = [...head.offsets];
  const n = offsets.length;
  let at = head.at;
  const rows = offsets.map((offset, i): MinuteRow => ({
    gpuUuid,
    minute: new Date(hourMs + offset * MINUTE_MS),
    hostId: "",
    samples: bytes.readUInt16LE(at + 2 * i),
    utilAvg: null,
    utilMax: null,
    memUsedAvg: null,
    memUsedMax: null,
    memTotal: null,
    powerAvg: null,
    tempAvg: null,
    tempMax: null,
    bookedByUserId: null,
    runnerUserId: null,
    busy: false,
    simulated: false,
  }));
  at += 2 * n;
  for (const measure of MEASURES) {
    for (const row of rows) {
      const value = bytes.readFloatLE(at);
      row[measure] = Number.isNaN(value) ? null : value;
      at += 4;
    }
  }
  const string = (i: number) => {
    const value = strings[i];
    if (value === undefined) throw new RangeError(`no string ${i}`);
    return value;
  };
  for (const row of rows) row.hostId = string(bytes.readUInt8(at++)) ?? "";
  for (const row of rows) row.bookedByUserId = string(bytes.readUInt8(at++));
  for (const row of rows) row.runnerUserId = string(bytes.readUInt8(at++));
  for (const row of rows) {
    const flags = bytes.readUInt8(at++);
    row.busy = (flags & BUSY) !== 0;
    row.simulated = (flags & SIMULATED) !== 0;
  }
  return rows;
}
