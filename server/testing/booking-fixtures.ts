import type { GpuSample } from "@/lib/snapshot";
import { db } from "@/server/db";
import { AppError } from "@/server/errors";
import { ensureLocalHost, recordHostInventory } from "@/server/hosts/host-registry";
import type { Actor } from "@/server/reservations/actor";
import { makeGpu, uniqueName } from "@/server/testing/factories";

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

/** The AppError a service call was refused with; fails the test if it succeeded or threw something else. */
export async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AppError)) throw new Error(`expected a refusal (AppError), got ${error === null ? "success" : String(error)}`);
  return error;
}
