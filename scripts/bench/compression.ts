/**
 * `tsx scripts/bench/compression.ts`: what compressing the member scope's deltas would save
 * and cost, on real deltas. The simulated fleet (as `npm run bench` runs it) reports once a
 * second into a FleetState; each second's drained delta goes through the member encoder, as
 * the live endpoint sends it. For each delta it measures the bytes on the wire (socket.io
 * and WebSocket framing included) and the CPU of:
 *
 *   none         today: the JSON text frame, encoded once per broadcast
 *   per-socket   socket.io's perMessageDeflate (ws, RFC 7692, context takeover, level 6,
 *                threshold 1 KiB): one deflate stream per socket, so CPU × viewers
 *   once L1/L6   deflate-raw of the JSON once per broadcast (level 1 or 6), sent as a
 *                binary attachment; the browser would inflate it with DecompressionStream
 *
 * CPU is measured with process.cpuUsage over repeated runs (not wall time), so a loaded
 * machine changes it little. Prints a markdown table.
 *
 *   tsx scripts/bench/compression.ts [--gpus 1000] [--viewers 50] [--seconds 60] [--warmup 10]
 */
import { constants, createDeflateRaw, deflateRawSync, inflateRawSync, type DeflateRaw } from "node:zlib";
import { Encoder } from "socket.io-parser";
import { simulatedFleet, simulatedSnapshotAt } from "@/host/collector/simulated/simulated-source";
import { FleetState } from "@/server/fleet/fleet-state";
import { MemberEncoder, SlotRegistry } from "@/server/live/member-encoder";
import { LIVE_NAMESPACE } from "@/lib/live/live";
import { argsOrExit, flag } from "./args";

interface Options {
  gpus: number;
  viewers: number;
  seconds: number;
  warmup: number;
}

const USAGE = "usage: tsx scripts/bench/compression.ts [--gpus 1000] [--viewers 50] [--seconds 60] [--warmup 10]";

function parseOptions(argv: string[]): Options {
  return argsOrExit(argv, { gpus: flag.whole(1000), viewers: flag.whole(50), seconds: flag.whole(60), warmup: flag.whole(10) }, USAGE).flags;
}

/** The member scope's deltas of `seconds` seconds of the simulated fleet, after `warmup` seconds. */
function memberDeltas({ gpus, seconds, warmup }: Options): object[] {
  const seed = 42;
  const start = Date.parse("2026-12-01T10:00:00.000Z");
  let now = start;
  const fleet = new FleetState({ offlineAfterMs: 15_000, simulated: true, now: () => now });
  const encoder = new MemberEncoder(new SlotRegistry());
  const hosts = simulatedFleet({ seed, gpuCount: gpus });
  for (const spec of hosts) fleet.connectHost(spec.hostName, spec.hostName, true);
  const deltas: object[] = [];
  for (let second = 0; second < warmup + seconds; second++) {
    now = start + second * 1000;
    for (const spec of hosts) fleet.ingest(spec.hostName, simulatedSnapshotAt(spec, seed, now - 40));
    now += 60;
    const delta = fleet.drainDelta();
    if (!delta) continue;
    const wire = encoder.encode(delta);
    if (second >= warmup) deltas.push(wire);
  }
  return deltas;
}

/** Bytes of a WebSocket frame from the server (unmasked) carrying `payload` bytes. */
const wsFrame = (payload: number) => payload + (payload < 126 ? 2 : payload < 65_536 ? 4 : 10);

/** socket.io's encoding of an emit to /live: packets as engine.io sends them over a WebSocket (text "4…", binary as is). */
function socketIoFrames(event: string, data: unknown): (string | Buffer)[] {
  const packets = new Encoder().encode({ type: 2, nsp: LIVE_NAMESPACE, data: [event, data] }) as (string | Buffer)[];
  return packets.map((packet) => (typeof packet === "string" ? `4${packet}` : packet));
}

const frameBytes = (frames: (string | Buffer)[]) => frames.reduce((sum, frame) => sum + wsFrame(typeof frame === "string" ? Buffer.byteLength(frame) : frame.length), 0);

/** CPU milliseconds (user + system) of `work`, repeated until at least 300 ms have gone, per repetition. */
async function cpuMs(work: () => void | Promise<void>): Promise<number> {
  let repetitions = 0;
  const since = process.cpuUsage();
  let used = 0;
  while (used < 300_000 || repetitions < 3) {
    await work();
    repetitions++;
    const cpu = process.cpuUsage(since);
    used = cpu.user + cpu.system;
  }
  return used / 1000 / repetitions;
}

/** One socket's permessage-deflate stream as ws runs it: level 6, context kept across messages, a sync flush per message, the 4-byte tail dropped. */
function perSocketDeflate(): { compress: (message: Buffer) => Promise<Buffer>; close: () => void } {
  const stream: DeflateRaw = createDeflateRaw({ level: constants.Z_DEFAULT_COMPRESSION, windowBits: 15, memLevel: 8 });
  let chunks: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  return {
    compress: (message) =>
      new Promise((resolve) => {
        stream.write(message);
        stream.flush(constants.Z_SYNC_FLUSH, () => {
          const out = Buffer.concat(chunks);
          chunks = [];
          resolve(out.subarray(0, out.length - 4));
        });
      }),
    close: () => stream.close(),
  };
}

const PER_MESSAGE_DEFLATE_THRESHOLD = 1024;

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const deltas = memberDeltas(options);
  const jsons = deltas.map((delta) => JSON.stringify(delta));
  const texts = deltas.map((delta) => socketIoFrames("fleet:delta", delta)[0] as string);
  const seconds = options.seconds;
  const perGpuSecond = (bytes: number) => bytes / options.gpus / seconds;

  const none = texts.reduce((sum, text) => sum + wsFrame(Buffer.byteLength(text)), 0);
  const encodeMs = (await cpuMs(() => jsons.forEach((_, i) => JSON.stringify(deltas[i])))) / deltas.length;

  // Per socket: every socket has its own stream; all see the same messages, so one stream's bytes stand for each.
  const socket = perSocketDeflate();
  let perSocketBytes = 0;
  for (const text of texts) {
    const raw = Buffer.from(text);
    perSocketBytes += raw.length < PER_MESSAGE_DEFLATE_THRESHOLD ? wsFrame(raw.length) : wsFrame((await socket.compress(raw)).length);
  }
  socket.close();
  const perSocketMs =
    (await cpuMs(async () => {
      const fresh = perSocketDeflate();
      for (const text of texts) await fresh.compress(Buffer.from(text));
      fresh.close();
    })) / texts.length;

  const rows = [
    `| none (today) | ${(none / seconds / 1024).toFixed(1)} | ${perGpuSecond(none).toFixed(1)} | ${encodeMs.toFixed(2)} (JSON, once) | 0 | – |`,
    `| per-socket deflate (perMessageDeflate) | ${(perSocketBytes / seconds / 1024).toFixed(1)} | ${perGpuSecond(perSocketBytes).toFixed(1)} | ${perSocketMs.toFixed(2)} × ${options.viewers} sockets = ${(perSocketMs * options.viewers).toFixed(1)} | ${((perSocketMs * options.viewers) / 10).toFixed(2)} | ${(1 - perSocketBytes / none).toFixed(2)} |`,
  ];
  for (const level of [1, 6]) {
    const compressed = jsons.map((json) => deflateRawSync(json, { level }));
    const bytes = compressed.reduce((sum, payload) => sum + frameBytes(socketIoFrames("fleet:delta", payload)), 0);
    const deflateMs = (await cpuMs(() => jsons.forEach((json) => deflateRawSync(json, { level })))) / jsons.length;
    const inflateMs = (await cpuMs(() => compressed.forEach((payload) => inflateRawSync(payload)))) / compressed.length;
    rows.push(
      `| deflate once per broadcast, level ${level} (binary) | ${(bytes / seconds / 1024).toFixed(1)} | ${perGpuSecond(bytes).toFixed(1)} | ${deflateMs.toFixed(2)} (once); viewer inflates in ${inflateMs.toFixed(2)} | ${(deflateMs / 10).toFixed(3)} | ${(1 - bytes / none).toFixed(2)} |`,
    );
  }
  const meanJson = jsons.reduce((sum, json) => sum + json.length, 0) / jsons.length;
  process.stdout.write(
    `${options.gpus} GPUs, ${deltas.length} member-scope deltas (${seconds} s after ${options.warmup} s), mean JSON ${(meanJson / 1024).toFixed(1)} KiB, ${options.viewers} viewers\n\n` +
      "| option | per viewer (KiB/s) | bytes per GPU per second per viewer | server CPU per delta (ms) | server CPU (% of a core, one delta a second) | bytes saved |\n" +
      "|---|---:|---:|---|---:|---:|\n" +
      `${rows.join("\n")}\n`,
  );
}

await main();
