import type { GpuSample } from "@/lib/domain/snapshot";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import { ensureLocalHost, recordHostInventory } from "@/server/hosts/host-registry";
import type { Actor } from "@/server/access/actor";
import { gpuUuid, makeGpu, uniqueName } from "@/server/testing/factories";

/** A person who can book, with a unique username; call after useTestDatabase(). */
export async function createTestUser(role: "member" | "admin" = "member", prefix = "user"): Promise<Actor> {
  const username = uniqueName(prefix).toLowerCase();
  const user = await db().user.create({
    data: { id: uniqueName("u"), name: `Test ${username}`, email: `${username}@example.test`, username, role },
    select: { id: true, username: true, name: true, role: true, unixLogin: true },
  });
  return { id: user.id, username: user.username ?? username, name: user.name, role, unixLogin: user.unixLogin };
}

/** A host with `count` GPUs (indices 0..count-1) in the database, as an agent would have reported them. */
export async function createTestHost(count: number, prefix = "node"): Promise<{ id: string; name: string; gpus: GpuSample[] }> {
  const name = uniqueName(prefix);
  const host = await ensureLocalHost(name, true);
  const gpus = Array.from({ length: count }, (_, index) =>
    makeGpu({ index, pciBusId: `00000000:${(0x17 + index).toString(16).padStart(2, "0")}:00.0` }),
  );
  await recordHostInventory(host.id, { name, driverVersion: "580.159.04", cudaVersion: "13.0" }, gpus, new Date());
  return { id: host.id, name, gpus };
}

/**
 * `hosts` hosts of `gpus` GPUs each, of a model no other test uses (so that
 * "any N nodes of this model" sees only them), named in order
 * ("<model>-node-a", "-node-b", …): the fleet of a booking across nodes.
 */
export async function createModelFleet(hosts: number, gpus: number): Promise<{ model: string; names: string[] }> {
  const model = uniqueName("X").replace(/[^A-Za-z0-9]/g, "");
  const names: string[] = [];
  for (let rank = 0; rank < hosts; rank += 1) {
    const name = `${model.toLowerCase()}-node-${String.fromCharCode(97 + rank)}`;
    const host = await ensureLocalHost(name, true);
    const samples = Array.from({ length: gpus }, (_, index) =>
      makeGpu({ index, name: `NVIDIA ${model} 80GB HBM3`, pciBusId: `00000000:${(0x17 + index).toString(16).padStart(2, "0")}:00.0` }),
    );
    await recordHostInventory(host.id, { name, driverVersion: "580.159.04", cudaVersion: "13.0" }, samples, new Date());
    names.push(name);
  }
  return { model, names };
}

/** Memory of a MIG profile on an 80 GB H100 ("1g.10gb" → 9,984 MiB), as nvidia-smi reports it. */
const PROFILE_MIB: Record<string, number> = { "1g.10gb": 9984, "2g.20gb": 20096, "3g.40gb": 40448, "4g.40gb": 40448, "7g.80gb": 80896 };

/** A host whose GPU 0 (an H100) is split into slices of these profiles (MIG devices 0, 1, …), beside a whole GPU 1. */
export async function createMigTestHost(profiles: string[], prefix = "mig"): Promise<{ id: string; name: string; parent: GpuSample; slices: GpuSample[]; whole: GpuSample }> {
  const name = uniqueName(prefix);
  const host = await ensureLocalHost(name, true);
  const parent = makeGpu({ index: 0, migMode: "Enabled", utilizationGpuPct: null });
  const slices = profiles.map((profile, deviceIndex) =>
    makeGpu({
      index: 0,
      uuid: `MIG-${gpuUuid().slice(4)}`,
      memoryTotalMiB: PROFILE_MIB[profile] ?? null,
      memoryUsedMiB: 17,
      utilizationGpuPct: null,
      migMode: "Enabled",
      mig: { parentUuid: parent.uuid, profile, gpuInstanceId: deviceIndex + 1, computeInstanceId: 0, deviceIndex },
    }),
  );
  const whole = makeGpu({ index: 1, pciBusId: "00000000:18:00.0" });
  await recordHostInventory(host.id, { name, driverVersion: "590.48.01", cudaVersion: "13.1" }, [parent, ...slices, whole], new Date());
  return { id: host.id, name, parent, slices, whole };
}

/** The AppError a service call was refused with; fails the test if it succeeded or threw something else. */
export async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AppError)) throw new Error(`expected a refusal (AppError), got ${error === null ? "success" : String(error)}`);
  return error;
}
