/**
 * The cluster relay's cost per reading (issue 16), without servers or
 * Redis: a simulated fleet reports for a while to instance A, which ingests
 * each reading as its agent endpoint does and relays it; instance B applies
 * what A relays. Prints CPU time (process.cpuUsage, user + system: less
 * sensitive to a loaded machine than wall time) per reading for:
 *
 *   local    what A spends on a reading of its own agent: the socket.io
 *            payload's JSON.parse, the agent schema, FleetState.ingest
 *            (not the ownership lookup, the rollups or the database)
 *   send     A's relay: encoding the reading and the message's JSON (what serverSideEmit does)
 *   relayed  B: the message's JSON.parse (what the Redis adapter does) and applying it
 *
 * and the bytes on Redis per reading (the JSON serverSideEmit publishes).
 *
 *   npx tsx scripts/bench/relay-cost.ts [--gpus 1000] [--seconds 60] [--warmup 10] [--relay server/cluster/fleet-relay.ts]
 *
 * `--relay` takes another implementation with the same FleetRelay API (the
 * one before a change, checked out beside it) for a before → after.
 */
import path from "node:path";
import { snapshotSchema, type Snapshot } from "@/lib/domain/snapshot";
import type { FleetRelay as FleetRelayClass, RelayTransport } from "@/server/cluster/fleet-relay";
import { simulatedFleet, simulatedSnapshotAt } from "@/host/collector/simulated/simulated-source";
import { FleetState } from "@/server/fleet/fleet-state";
import { argsOrExit, flag } from "./args";
import { repoRoot } from "./scenario";

const USAGE = "usage: npx tsx scripts/bench/relay-cost.ts [--gpus 1000] [--seconds 60] [--warmup 10] [--relay server/cluster/fleet-relay.ts]";
const { flags: values } = argsOrExit(
  process.argv.slice(2),
  { gpus: flag.whole(1000), seconds: flag.whole(60), warmup: flag.whole(10, { min: 0 }), relay: flag.text("server/cluster/fleet-relay.ts") },
  USAGE,
);
const { gpus, seconds, warmup } = values;
const { FleetRelay } = (await import(path.resolve(repoRoot, values.relay))) as { FleetRelay: typeof FleetRelayClass };

const start = Date.parse("2026-12-01T00:00:00Z");
let clock = start;
const now = () => clock;
let inFlight: string[] = [];
let bLoop: ((message: unknown) => void) | null = null;
const transport = (self: "a" | "b"): RelayTransport => ({
  send(message) {
    if (self === "a") inFlight.push(JSON.stringify({ uid: "bench", type: 6, data: ["gpudesk:fleet", message] }));
  },
  listen(handler) {
    if (self === "b") bLoop = handler;
    return () => undefined;
  },
});
const a = new FleetState({ offlineAfterMs: 60_000, simulated: true, now });
const b = new FleetState({ offlineAfterMs: 60_000, simulated: true, now });
const relayA = new FleetRelay({ fleet: a, instanceId: "a", transport: transport("a"), now });
new FleetRelay({ fleet: b, instanceId: "b", transport: transport("b"), now });

const hosts = simulatedFleet({ seed: 1, gpuCount: gpus }).map((spec, i) => ({ spec, host: { id: `host-${i}`, name: spec.hostName, simulated: true } }));
for (const { host } of hosts) a.connectHost(host.id, host.name, host.simulated);

const cpu = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};
const spent = { local: 0, send: 0, relayed: 0 };
let bytes = 0;
let readings = 0;
let gpuReadings = 0;

for (let second = 0; second < warmup + seconds; second += 1) {
  clock = start + second * 1000;
  // What the agents send this second, as socket.io hands it over (built outside the measure).
  const payloads = hosts.map(({ spec }) => JSON.stringify(simulatedSnapshotAt(spec, 1, clock)));
  const measured = second >= warmup;
  let t0 = cpu();
  const accepted: Snapshot[] = payloads.map((payload, i) => {
    const snapshot = snapshotSchema.parse(JSON.parse(payload));
    a.ingest(hosts[i]!.host.id, snapshot);
    return snapshot;
  });
  let t1 = cpu();
  if (measured) spent.local += t1 - t0;
  t0 = cpu();
  accepted.forEach((snapshot, i) => relayA.forwardSnapshot(hosts[i]!.host, snapshot));
  relayA.flush();
  t1 = cpu();
  if (measured) spent.send += t1 - t0;
  const messages = inFlight;
  inFlight = [];
  t0 = cpu();
  for (const text of messages) bLoop!((JSON.parse(text) as { data: [string, unknown] }).data[1]);
  t1 = cpu();
  if (measured) {
    spent.relayed += t1 - t0;
    bytes += messages.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
    readings += hosts.length;
    gpuReadings += gpus;
  }
  a.drainDelta();
  b.drainDelta();
}

const same = JSON.stringify(a.current().gpus.map((gpu) => gpu.utilizationGpuPct)) === JSON.stringify(b.current().gpus.map((gpu) => gpu.utilizationGpuPct));
const perHost = (ms: number) => ((ms * 1000) / readings).toFixed(0);
const perGpu = (ms: number) => ((ms * 1000) / gpuReadings).toFixed(1);
console.log(`relay cost: ${values.relay}, ${gpus} GPUs on ${hosts.length} hosts, ${seconds} s measured after ${warmup} s; B agrees with A: ${same}`);
console.log(`CPU µs per host reading (per GPU reading): local ${perHost(spent.local)} (${perGpu(spent.local)}), send ${perHost(spent.send)} (${perGpu(spent.send)}), relayed ${perHost(spent.relayed)} (${perGpu(spent.relayed)})`);
console.log(`relayed / local: ${(spent.relayed / spent.local).toFixed(2)}; bytes on Redis per GPU reading ${(bytes / gpuReadings).toFixed(1)}, per second at ${gpus} GPUs ${(bytes / seconds / 1024).toFixed(1)} KiB`);
