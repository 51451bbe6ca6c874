/**
 * Prepares a benchmark database: migrates it, registers one host per
 * simulated 8-GPU host, a wall display and a member with a personal token
 * (the viewers watch the member scope, the fleet view's feed), and prints
 * JSON with their tokens. `--extra-host NAME` registers one more host
 * for an agent the benchmark runs itself (the change → viewer bench's real
 * agent); `--gpus 0` then leaves it alone.
 * Run by the benchmark in a child process whose GPUDESK_DATA_DIR (or
 * DATABASE_URL) names the scenario's database, the way `gpudesk host add`
 * and `gpudesk display add` would, only without a process per host.
 *
 *   GPUDESK_DATA_DIR=/tmp/x npx tsx scripts/bench/setup-database.ts --gpus 1000 --seed 42
 */
import { simulatedFleet } from "@/host/collector/simulated/simulated-source";
import { createDisplay, createPersonalToken } from "@/server/auth/tokens";
import { createUser } from "@/server/auth/users";
import { disconnectDb } from "@/server/core/db";
import { migrateDatabase } from "@/server/core/migrate";
import { env } from "@/server/core/env";
import { createHost } from "@/server/hosts/host-registry";
import { repoRoot } from "@/server/core/paths";
import { argsOrExit, flag } from "./args";

export interface BenchDatabase {
  hosts: { name: string; token: string }[];
  /** The `--extra-host`, when asked for. */
  extraHost?: { name: string; token: string };
  displayToken: string;
  memberToken: string;
}

const USAGE = "usage: GPUDESK_DATA_DIR=/tmp/x npx tsx scripts/bench/setup-database.ts [--gpus 250] [--seed 42] [--extra-host NAME]";
const FLAGS = { gpus: flag.whole(250, { min: 0 }), seed: flag.whole(42), extraHost: flag.text(null) };

async function main(): Promise<void> {
  const { gpus, seed, extraHost } = argsOrExit(process.argv.slice(2), FLAGS, USAGE).flags;
  await migrateDatabase(env().DATABASE_URL, repoRoot);
  const hosts: BenchDatabase["hosts"] = [];
  for (const spec of gpus > 0 ? simulatedFleet({ seed, gpuCount: gpus }) : []) {
    const { token } = await createHost(spec.hostName);
    hosts.push({ name: spec.hostName, token });
  }
  const extra = extraHost === null ? undefined : { name: extraHost, token: (await createHost(extraHost)).token };
  const { token: displayToken } = await createDisplay("bench-viewers");
  const viewer = await createUser({ username: "bench.viewer", password: "bench-viewer-password" });
  const { token: memberToken } = await createPersonalToken(viewer.id, "bench viewers");
  const result: BenchDatabase = { hosts, displayToken, memberToken, ...(extra ? { extraHost: extra } : {}) };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await disconnectDb();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
