import { db } from "@/server/core/db";
import { MINUTE_RULES, type MinuteFacts } from "@/server/history/resolution";
import { MINUTE_MS } from "@/server/minutes/minute-row";
import { isBusy, isSimulated, type MinuteColumns } from "@/server/minutes/minute-block";
import { readColumnPages } from "@/server/minutes/minute-store";

/** What a minute sum can be grouped by. */
export type MinuteSumKey = "bucket" | "gpu" | "host" | "booker" | "runner";

export interface MinuteSumSpec {
  /** The group of a minute: the fields named here, in this order. */
  by: readonly MinuteSumKey[];
  /** Width of a "bucket" (aligned to the epoch, UTC). */
  bucketMs?: number;
  /** Only the minutes this person booked (a member's own page). */
  booker?: string;
  /** Only the minutes nobody booked. */
  unbooked?: boolean;
  /** Leaves out a split GPU's own minutes at the minutes one of its slices reported, as unit-weights.ts's `notWhileSliced` does its hours. */
  notWhileSliced?: boolean;
}

/** The fields of a group; those it is not grouped by are its first minute's. */
export interface MinuteGroup {
  /** Start of the bucket (ms), or of the first minute's when not grouped by bucket. */
  bucketStartMs: number;
  gpuUuid: string;
  hostId: string;
  bookedByUserId: string | null;
  runnerUserId: string | null;
}

/** One group's sums over its minutes, by `MINUTE_RULES`. */
export interface MinuteSums {
  group: MinuteGroup;
  minutes: number;
  utilMinutes: number;
  utilCounted: number;
  busyMinutes: number;
  idleMinutes: number;
  /** Minutes of the simulated fleet. */
  simulated: number;
}

interface SumRequest {
  fromMs: number;
  toMs: number;
  spec: MinuteSumSpec;
  sums: Map<string, MinuteSums>;
  resolve: (sums: Map<string, MinuteSums>) => void;
  reject: (error: unknown) => void;
}

/** Requests waiting for the next turn of the event loop, in passes over overlapping ranges. */
let waiting: { fromMs: number; toMs: number; requests: SumRequest[] }[] = [];

/**
 * The minute path of the usage queries: the stored minutes of [fromMs, toMs)
 * summed per group (`spec`), what the hour path's GROUP BY over `HOUR_SQL`
 * does in the database. Summed straight from each block's columns
 * (`decodeMinuteColumns`): no row object, Date or key string per minute;
 * a group's key is built once per block and group. Sums asked for in the
 * same turn of the event loop over overlapping ranges (a usage report's
 * series, heatmap, tables and use without a booking) share one read of the
 * blocks. A block that cannot be read is left out (server/minutes/unreadable-blocks.ts).
 */
export function sumMinutes(fromMs: number, toMs: number, spec: MinuteSumSpec): Promise<Map<string, MinuteSums>> {
  if (spec.by.includes("bucket") && !(spec.bucketMs && spec.bucketMs % MINUTE_MS === 0)) throw new RangeError(`a bucket of whole minutes is needed, not ${spec.bucketMs}`);
  return new Promise((resolve, reject) => {
    const request: SumRequest = { fromMs, toMs, spec, sums: new Map(), resolve, reject };
    if (waiting.length === 0) setImmediate(runWaiting);
    const pass = waiting.find((candidate) => candidate.fromMs < toMs && fromMs < candidate.toMs);
    if (pass) {
      pass.fromMs = Math.min(pass.fromMs, fromMs);
      pass.toMs = Math.max(pass.toMs, toMs);
      pass.requests.push(request);
    } else waiting.push({ fromMs, toMs, requests: [request] });
  });
}

function runWaiting(): void {
  const passes = waiting;
  waiting = [];
  for (const pass of passes) {
    runPass(pass.fromMs, pass.toMs, pass.requests).then(
      () => pass.requests.forEach((request) => request.resolve(request.sums)),
      (error: unknown) => pass.requests.forEach((request) => request.reject(error)),
    );
  }
}

async function runPass(fromMs: number, toMs: number, requests: SumRequest[]): Promise<void> {
  const sliced = requests.some((request) => request.spec.notWhileSliced) ? await slicedMinutes() : null;
  for await (const page of readColumnPages(db(), fromMs, toMs)) {
    const skipOf = sliced?.(page) ?? null;
    for (const block of page) {
      const skip = skipOf?.(block) ?? null;
      for (const request of requests) addBlock(request, block, request.spec.notWhileSliced ? skip : null);
    }
  }
}

/** Bit m set: minute m of the hour is left out. Two words: minutes 0–31 and 32–59. */
type MinuteMask = [number, number];
const inMask = (mask: MinuteMask, minute: number) => ((minute < 32 ? mask[0] >>> minute : mask[1] >>> (minute - 32)) & 1) === 1;

/**
 * `notWhileSliced` over a page of blocks (every GPU's blocks of some whole
 * hours): for each block of a split GPU, the minutes one of its slices
 * reported, to be left out.
 */
async function slicedMinutes(): Promise<(page: MinuteColumns[]) => ((block: MinuteColumns) => MinuteMask | null) | null> {
  const slices = await db().gpu.findMany({ where: { parentUuid: { not: null } }, select: { uuid: true, parentUuid: true } });
  const parentOf = new Map(slices.map((slice) => [slice.uuid, slice.parentUuid!]));
  if (parentOf.size === 0) return () => null;
  return (page) => {
    const masks = new Map<string, MinuteMask>();
    for (const block of page) {
      const parent = parentOf.get(block.gpuUuid);
      if (!parent) continue;
      const key = `${parent}\u0000${block.hourMs}`;
      const mask = masks.get(key) ?? [0, 0];
      for (const minute of block.offsets) {
        if (minute < 32) mask[0] |= 1 << minute;
        else mask[1] |= 1 << (minute - 32);
      }
      masks.set(key, mask);
    }
    return (block) => masks.get(`${block.gpuUuid}\u0000${block.hourMs}`) ?? null;
  };
}

/**
 * Adds one block's minutes in the request's range to its groups. Within a
 * block the GPU is one and the ids are small numbers, so a minute's group
 * is found by a number made of its bucket and ids; the key string is built
 * once per block and group.
 */
function addBlock(request: SumRequest, block: MinuteColumns, skip: MinuteMask | null): void {
  const { spec, fromMs, toMs } = request;
  const { offsets, utilAvg, host, booker, runner, flags, strings, hourMs } = block;
  let onlyBooker = -1;
  if (spec.booker !== undefined) {
    onlyBooker = strings.indexOf(spec.booker);
    if (onlyBooker <= 0) return;
  }
  const bucketMs = spec.bucketMs ?? 0;
  const byBucket = spec.by.includes("bucket");
  const byHost = spec.by.includes("host");
  const byBooker = spec.by.includes("booker");
  const byRunner = spec.by.includes("runner");
  const local = new Map<number, MinuteSums>();
  // Neighbouring minutes mostly share their group (a block is one GPU; a booking spans hours): the last group is checked before the map.
  let lastSignature = -1;
  let last: MinuteSums | null = null;
  const facts: MinuteFacts = { utilAvg: null, busy: false };
  for (let i = 0; i < offsets.length; i++) {
    const minute = offsets[i]!;
    const minuteMs = hourMs + minute * MINUTE_MS;
    if (minuteMs < fromMs || minuteMs >= toMs) continue;
    if (skip && inMask(skip, minute)) continue;
    if (onlyBooker > 0 && booker[i] !== onlyBooker) continue;
    if (spec.unbooked && booker[i] !== 0) continue;
    const bucketStartMs = byBucket ? MINUTE_RULES.bucket(minuteMs, bucketMs) : minuteMs;
    // At most 60 buckets in a block's hour and 256 ids a column: the number stays exact in a double.
    const signature = (((byBucket ? Math.floor(minuteMs / bucketMs) - Math.floor(hourMs / bucketMs) : 0) * 256 + (byHost ? host[i]! : 0)) * 256 + (byBooker ? booker[i]! : 0)) * 256 + (byRunner ? runner[i]! : 0);
    let sums: MinuteSums | null | undefined = signature === lastSignature ? last : local.get(signature);
    if (!sums) {
      const group: MinuteGroup = { bucketStartMs, gpuUuid: block.gpuUuid, hostId: strings[host[i]!] ?? "", bookedByUserId: strings[booker[i]!] ?? null, runnerUserId: strings[runner[i]!] ?? null };
      const key = spec.by.map((field) => keyPart(group, field)).join("\u0000");
      sums = request.sums.get(key);
      if (!sums) request.sums.set(key, (sums = { group, minutes: 0, utilMinutes: 0, utilCounted: 0, busyMinutes: 0, idleMinutes: 0, simulated: 0 }));
      local.set(signature, sums);
    }
    lastSignature = signature;
    last = sums;
    const util = utilAvg[i]!;
    facts.utilAvg = Number.isNaN(util) ? null : util;
    facts.busy = isBusy(flags[i]!);
    sums.minutes += MINUTE_RULES.minutes(facts);
    sums.utilMinutes += MINUTE_RULES.utilMinutes(facts);
    sums.utilCounted += MINUTE_RULES.utilCounted(facts);
    sums.busyMinutes += MINUTE_RULES.busyMinutes(facts);
    sums.idleMinutes += MINUTE_RULES.idleMinutes(facts);
    sums.simulated += isSimulated(flags[i]!) ? 1 : 0;
  }
}

function keyPart(group: MinuteGroup, field: MinuteSumKey): string {
  switch (field) {
    case "bucket":
      return String(group.bucketStartMs);
    case "gpu":
      return group.gpuUuid;
    case "host":
      return group.hostId;
    case "booker":
      return group.bookedByUserId ?? "";
    case "runner":
      return group.runnerUserId ?? "";
  }
}
