/**
 * Issue 49's figures (docs/benchmark.md, "Issue 49"):
 *
 * 1. A booking on a Slurm node, against the real Slurm of scripts/slurm/start.sh (`--bookings 0`: not run):
 *    `createReservation` (gpudesk's transaction with Slurm's `POST …/reservation`
 *    inside it), then a release, `--bookings` times; p50, p95, max. Skipped
 *    without the cluster (its env file, as server/testing/slurm-cluster.ts finds it).
 * 2. The reconciler's pass over `--current` current bookings on Slurm nodes,
 *    against a slurmrestd stand-in on a real port that answers the lists
 *    recorded from Slurm 26.05 (server/slurm/fixtures), with one reservation
 *    per booking, and counts each call: the pass's time (median and max of
 *    `--passes`) and its calls to Slurm, which must be one list each.
 *
 *   npx tsx scripts/bench/bench-slurm.ts [--bookings 30] [--current 1000] [--passes 5]
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { argsOrExit, flag } from "./args";
import { useScratchDatabase } from "./scratch-database";

const USAGE = "npx tsx scripts/bench/bench-slurm.ts [--bookings N] [--current N] [--passes N]";
const { flags } = argsOrExit(process.argv.slice(2), { bookings: flag.whole(30, { min: 0 }), current: flag.whole(1000), passes: flag.whole(5) }, USAGE);
const fixtures = fileURLToPath(new URL("../../server/slurm/fixtures/", import.meta.url));
const fixture = (name: string): Record<string, unknown> => JSON.parse(readFileSync(path.join(fixtures, name), "utf8"));

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

const load = () => os.loadavg().map((value) => value.toFixed(1)).join(" ");

async function main(): Promise<void> {
  const scratch = await useScratchDatabase("bench-slurm");
  try {
    console.log(`machine: ${os.cpus().length} cores, load average ${load()} at start`);
    await bookingsOnSlurm();
    await reconcilerPass();
    console.log(`load average ${load()} at the end`);
  } finally {
    await scratch.remove();
  }
}

async function bookingsOnSlurm(): Promise<void> {
  const { slurmForTests, useTestSlurm } = await import("@/server/testing/slurm-cluster");
  const cluster = slurmForTests();
  if (flags.bookings === 0) return;
  if (!cluster.available) {
    console.log(`bookings on a Slurm node: skipped (${cluster.reason})`);
    return;
  }
  const slurm = await useTestSlurm();
  try {
    const fx = await import("@/server/testing/booking-fixtures");
    const { db } = await import("@/server/core/db");
    const { createBooking: createReservation } = await import("@/server/bookings/commands/create-booking");
    const { releaseBooking: releaseReservation } = await import("@/server/bookings/commands/end-booking");
    const { SlurmConnection } = await import("@/server/slurm/slurm-connection");
    const { slurmBookingBackend } = await import("@/server/bookings/slurm/slurm-backend");
    const { registerBookingBackend } = await import("@/server/bookings/backends/booking-backend");
    const { setHostSlurmNode } = await import("@/server/hosts/host-registry");
    const connection = new SlurmConnection({ url: slurm.url, user: slurm.user, jwtKeyFile: slurm.jwtKeyFile });
    await connection.refresh();
    const unregister = registerBookingBackend(slurmBookingBackend(connection));
    const admin = await fx.createTestUser("admin");
    const ann = await fx.createTestUser();
    await db().user.update({ where: { id: ann.id }, data: { unixLogin: "ann" } });
    const host = await fx.createTestHost(8, "bench-dgx");
    await setHostSlurmNode(admin.id, host.id, "slurm-a");
    const times: number[] = [];
    const lists: number[] = [];
    try {
      for (let i = 0; i < flags.bookings; i++) {
        const started = performance.now();
        const booking = await createReservation({ ...ann, unixLogin: "ann" }, { host: host.name, gpus: [0, 1], durationMinutes: 30, purpose: `bench ${i}` });
        times.push(performance.now() - started);
        await releaseReservation({ ...ann, unixLogin: "ann" }, booking.id);
      }
      // What a reconciler pass asks of the real slurmrestd: the three lists, at once.
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        await connection.refresh();
        lists.push(performance.now() - started);
      }
    } finally {
      unregister();
    }
    times.sort((a, b) => a - b);
    lists.sort((a, b) => a - b);
    console.log(
      `bookings on a Slurm node (real Slurm ${connection.status.version?.release}, ${flags.bookings} bookings of 2 GPUs, each released): ` +
        `p50 ${times[Math.floor(times.length / 2)]!.toFixed(0)} ms, p95 ${quantile(times, 0.95).toFixed(0)} ms, max ${times[times.length - 1]!.toFixed(0)} ms`,
    );
    console.log(`the three lists (nodes, jobs, reservations) from the real slurmrestd: median ${lists[2]!.toFixed(0)} ms, max ${lists[4]!.toFixed(0)} ms`);
  } finally {
    slurm.release();
  }
}

async function reconcilerPass(): Promise<void> {
  const fx = await import("@/server/testing/booking-fixtures");
  const { db } = await import("@/server/core/db");
  const { createBooking: createReservation } = await import("@/server/bookings/commands/create-booking");
  const { SlurmConnection } = await import("@/server/slurm/slurm-connection");
  const { reconcileSlurm } = await import("@/server/bookings/slurm/slurm-reconciler");
  const hosts = await Promise.all(Array.from({ length: 8 }, () => fx.createTestHost(8, "bench-node")));
  const people = await Promise.all(Array.from({ length: 20 }, () => fx.createTestUser()));
  for (const [i, person] of people.entries()) await db().user.update({ where: { id: person.id }, data: { unixLogin: `bench${i}` } });
  const nowMs = Date.now();
  const ids: string[] = [];
  const made = performance.now();
  // One GPU for half an hour each, one after another on every GPU of the 8 hosts.
  for (let k = 0; k < flags.current; k++) {
    const slot = Math.floor(k / 64);
    const booking = await createReservation(
      { ...people[k % people.length]!, unixLogin: `bench${k % people.length}` },
      { host: hosts[k % 8]!.name, gpus: [Math.floor(k / 8) % 8], startsAt: new Date(nowMs + 60_000 + slot * 1800_000).toISOString(), durationMinutes: 30, purpose: `current ${k}` },
    );
    ids.push(booking.id);
  }
  // As the Slurm backend leaves them when Slurm took each reservation (they were made here without it).
  await db().reservation.updateMany({ where: { purpose: { startsWith: "current " } }, data: { slurmState: "held" } });
  console.log(`${flags.current} current bookings on 8 Slurm nodes made in ${((performance.now() - made) / 1000).toFixed(0)} s (not measured)`);

  // slurmrestd's stand-in: the recorded answers, one reservation of gpudesk's per booking, every call counted.
  const recorded = fixture("calendar-reservations.json");
  const shape = (recorded.reservations as Record<string, unknown>[]).find((entry) => entry.name === "gpudesk-b7")!;
  const reservations = { ...recorded, reservations: ids.map((id) => ({ ...shape, name: `gpudesk-${id}` })) };
  const nodes = { ...fixture("nodes.json"), nodes: hosts.map((host) => ({ name: host.name })) };
  const answers: Record<string, unknown> = {
    "/openapi/v3": fixture("openapi-v3.json"),
    "/slurm/v0.0.45/nodes": nodes,
    "/slurm/v0.0.45/jobs": fixture("calendar-jobs.json"),
    "/slurm/v0.0.45/reservations": reservations,
  };
  const calls = new Map<string, number>();
  const server = createServer((request, response) => {
    const key = `${request.method} ${request.url}`;
    calls.set(key, (calls.get(key) ?? 0) + 1);
    const body = request.method === "GET" ? answers[request.url ?? ""] : undefined;
    response.writeHead(body ? 200 : 404, { "Content-Type": "application/json" });
    response.end(JSON.stringify(body ?? { errors: [{ error: "not in the benchmark", error_number: 9001 }] }));
  });
  // Longer than the client keeps an idle socket: a socket the server closed under a reused request reads ECONNRESET.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const connection = new SlurmConnection({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, user: "gpudesk", token: "bench" });
    await connection.refresh();
    const passes: number[] = [];
    let lastCalls = "";
    for (let i = 0; i < flags.passes; i++) {
      calls.clear();
      const started = performance.now();
      const result = await reconcileSlurm(connection);
      passes.push(performance.now() - started);
      if (result.bookings !== flags.current || result.remade.length + result.missing.length + result.orphansDeleted.length > 0) {
        throw new Error(`the pass saw ${result.bookings} bookings and repaired ${JSON.stringify(result)}`);
      }
      lastCalls = [...calls].map(([key, count]) => `${key} ×${count}`).join(", ");
    }
    passes.sort((a, b) => a - b);
    console.log(
      `reconciler pass over ${flags.current} current bookings (${flags.passes} passes): median ${passes[Math.floor(passes.length / 2)]!.toFixed(0)} ms, max ${passes[passes.length - 1]!.toFixed(0)} ms; calls to Slurm per pass: ${lastCalls}`,
    );
  } finally {
    server.close();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
