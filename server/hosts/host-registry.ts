import { countUnits, type UnitCount } from "@/lib/domain/unit-count";
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { chunks } from "@/lib/chunks";
import type { GpuSample, HostInfo } from "@/lib/domain/snapshot";
import { type HostFabric, parseStoredFabric } from "@/lib/domain/fabric";
import { parseTopology } from "@/server/hosts/topology";
import { writeAudit } from "@/server/access/audit-log";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import { createUnlessTaken } from "@/server/core/unique-violation";
import { slurmConnection } from "@/server/slurm/slurm-connection";
import { refreshSlurmCalendar } from "@/server/hosts/slurm-calendar-hosts";

export const hostNameSchema = z
  .string()
  .trim()
  .min(1, "is required")
  .max(63, "is at most 63 characters")
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "may contain letters, digits, '.', '_' and '-'");

/** POST /api/v1/hosts. */
export const createHostSchema = z.object({ name: hostNameSchema });

const TOKEN_PREFIX = "gpd_host_";

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export interface RegisteredHost {
  id: string;
  name: string;
  simulated: boolean;
}

const hostSelect = { id: true, name: true, simulated: true } as const;

/**
 * Registers a GPU host and returns its agent token. The token is shown this
 * once: only its hash is stored.
 */
export async function createHost(rawName: string): Promise<{ host: RegisteredHost; token: string }> {
  const parsed = hostNameSchema.safeParse(rawName);
  if (!parsed.success) {
    throw new AppError("bad_request", `Host name ${parsed.error.issues[0]?.message}`, {
      name: parsed.error.issues[0]?.message ?? "is invalid",
    });
  }
  const name = parsed.data;
  const taken = () => new AppError("conflict", `A host named ${name} already exists`);
  if (await db().host.findUnique({ where: { name }, select: { id: true } })) throw taken();
  const token = newHostToken();
  const host = await createUnlessTaken(
    () =>
      db().$transaction(async (tx) => {
        const created = await tx.host.create({
          data: { name, tokenHash: hashToken(token), tokenPrefix: token.slice(0, TOKEN_PREFIX.length + 4) },
          select: hostSelect,
        });
        await writeAudit(tx, { action: "host.register", entityType: "host", entityId: created.id, after: { name } });
        return created;
      }),
    taken,
  );
  return { host, token };
}

/** The host an agent token belongs to, or null for an unknown token. */
export async function findHostByToken(token: string): Promise<RegisteredHost | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  return db().host.findUnique({ where: { tokenHash: hashToken(token) }, select: hostSelect });
}

/** The host of an in-process agent of the embedded server; it needs no token. */
export async function ensureLocalHost(name: string, simulated: boolean): Promise<RegisteredHost> {
  return db().host.upsert({
    where: { name },
    create: { name, simulated },
    update: { simulated },
    select: hostSelect,
  });
}

/**
 * Keeps what `nvidia-smi topo -m` printed on a host, for choosing close GPUs.
 * Text without a GPU matrix (an error message, a driver without the command)
 * clears it: a stale layout would be worse than none.
 */
export async function saveHostTopology(hostId: string, text: string | null): Promise<void> {
  const topology = text !== null && parseTopology(text) !== null ? text : null;
  await db().host.update({ where: { id: hostId }, data: { topology } });
}

/** Keeps the RDMA devices the agent read (already checked against the protocol's schema); null clears them. */
export async function saveHostFabric(hostId: string, fabric: HostFabric | null): Promise<void> {
  await db().host.update({ where: { id: hostId }, data: { fabric: fabric ? JSON.stringify(fabric) : null } });
}

/** An admin names the host's fabric (a rack, switch or fabric name; null clears it); audited. */
export async function setHostFabricLabel(actorId: string, hostId: string, label: string | null): Promise<{ id: string; name: string; fabricLabel: string | null }> {
  return db().$transaction(async (tx) => {
    const before = await tx.host.findUnique({ where: { id: hostId }, select: { name: true, fabricLabel: true } });
    if (!before) throw new AppError("not_found", "No such host");
    const after = await tx.host.update({ where: { id: hostId }, data: { fabricLabel: label }, select: { id: true, name: true, fabricLabel: true } });
    await writeAudit(tx, { actorId, action: "host.fabric_label", entityType: "host", entityId: hostId, before: { fabricLabel: before.fabricLabel }, after: { host: before.name, fabricLabel: label } });
    return after;
  });
}

/**
 * An admin maps the host to a Slurm NodeName other than its own name (null: its name). The calendar is laid again
 * from the last lists at once (no call to Slurm), so that the mapping shows on the calendar and Admin → Hosts now.
 */
export async function setHostSlurmNode(actorId: string, hostId: string, slurmNode: string | null): Promise<{ id: string; name: string; slurmNode: string | null }> {
  const after = await db().$transaction(async (tx) => {
    const before = await tx.host.findUnique({ where: { id: hostId }, select: { name: true, slurmNode: true } });
    if (!before) throw new AppError("not_found", "No such host");
    const after = await tx.host.update({ where: { id: hostId }, data: { slurmNode }, select: { id: true, name: true, slurmNode: true } });
    await writeAudit(tx, { actorId, action: "host.slurm_node", entityType: "host", entityId: hostId, before: { slurmNode: before.slurmNode }, after: { host: before.name, slurmNode } });
    return after;
  });
  const connection = slurmConnection();
  if (connection) await refreshSlurmCalendar(connection);
  return after;
}

/**
 * Records what a host reported: versions, last-seen time and its GPU
 * inventory. Called when the inventory or versions change and otherwise at
 * most once a minute, never per sample.
 */
export async function recordHostInventory(
  hostId: string,
  info: HostInfo,
  gpus: GpuSample[],
  seenAt: Date,
): Promise<void> {
  await db().$transaction([
    db().host.update({
      where: { id: hostId },
      data: { driverVersion: info.driverVersion, cudaVersion: info.cudaVersion, lastSeenAt: seenAt },
    }),
    ...gpus.map((gpu) =>
      db().gpu.upsert({
        where: { uuid: gpu.uuid },
        create: {
          uuid: gpu.uuid,
          hostId,
          index: gpu.index,
          name: gpu.name,
          pciBusId: gpu.pciBusId,
          memoryTotalMiB: gpu.memoryTotalMiB === null ? null : Math.round(gpu.memoryTotalMiB),
          migMode: gpu.migMode,
          ...migColumns(gpu),
          firstSeenAt: seenAt,
          lastSeenAt: seenAt,
        },
        update: {
          index: gpu.index,
          name: gpu.name,
          pciBusId: gpu.pciBusId,
          memoryTotalMiB: gpu.memoryTotalMiB === null ? null : Math.round(gpu.memoryTotalMiB),
          migMode: gpu.migMode,
          ...migColumns(gpu),
          lastSeenAt: seenAt,
        },
      }),
    ),
  ]);
}

/**
 * What `recordHostInventory` stores of a report apart from the time: equal
 * signatures store equal rows, so a report like the last one written needs
 * only `recordHostSeen`.
 */
export function inventorySignature(info: HostInfo, gpus: GpuSample[]): string {
  return JSON.stringify([
    info.driverVersion,
    info.cudaVersion,
    gpus.map((gpu) => [gpu.uuid, gpu.index, gpu.name, gpu.pciBusId, gpu.memoryTotalMiB === null ? null : Math.round(gpu.memoryTotalMiB), gpu.migMode, gpu.mig ?? null]),
  ]);
}

/** A slice's MIG columns (all null on a whole GPU): a layout change rewrites them with the inventory. */
function migColumns(gpu: GpuSample) {
  return {
    parentUuid: gpu.mig?.parentUuid ?? null,
    migProfile: gpu.mig?.profile ?? null,
    migGpuInstanceId: gpu.mig?.gpuInstanceId ?? null,
    migComputeInstanceId: gpu.mig?.computeInstanceId ?? null,
    migDeviceIndex: gpu.mig?.deviceIndex ?? null,
  };
}

/** Ids per `IN (…)` list: SQLite takes at most 999 bound parameters a statement. */
const IDS_PER_STATEMENT = 500;

/**
 * Moves the last-seen time of these hosts and of these GPUs, and nothing
 * else: a statement or two for a whole fleet, where `recordHostInventory`
 * writes one per GPU (at 1,000 GPUs its once-a-minute refresh was 1,125
 * statements a minute, a fifth of the server's CPU). For reports whose
 * inventory is already stored; GPUs are named, so a GPU the host no longer
 * reports keeps its last-seen time (the alerts' expected inventory ages it out).
 *
 * A time only moves forward: a batch of an older reading that lands after a
 * newer inventory write leaves that write's times. Every unit a reading names
 * gets the one time in one transaction, so a MIG slice still in its GPU's
 * layout is never older than its GPU, and one the layout dropped is older
 * from the first write without it (`currentUnits`, server/bookings/placement/host-units.ts).
 */
export async function recordHostsSeen(hostIds: string[], gpuUuids: string[], seenAt: Date): Promise<void> {
  if (hostIds.length === 0) return;
  await db().$transaction([
    ...chunks(hostIds, IDS_PER_STATEMENT).map((ids) =>
      db().host.updateMany({ where: { id: { in: ids }, OR: [{ lastSeenAt: null }, { lastSeenAt: { lt: seenAt } }] }, data: { lastSeenAt: seenAt } }),
    ),
    ...chunks(gpuUuids, IDS_PER_STATEMENT).map((uuids) => db().gpu.updateMany({ where: { uuid: { in: uuids }, lastSeenAt: { lt: seenAt } }, data: { lastSeenAt: seenAt } })),
  ]);
}


/** GPU UUID → owning host id, to refuse an agent that reports another host's GPU. */
export async function findGpuOwners(uuids: string[]): Promise<Map<string, string>> {
  const rows = await db().gpu.findMany({ where: { uuid: { in: uuids } }, select: { uuid: true, hostId: true } });
  return new Map(rows.map((row) => [row.uuid, row.hostId]));
}

function newHostToken(): string {
  return TOKEN_PREFIX + randomBytes(24).toString("base64url");
}

/** Replaces a host's token: the old one stops working at once. Returns the new token, shown once. */
export async function rotateHostToken(hostId: string): Promise<{ host: RegisteredHost; token: string }> {
  const existing = await db().host.findUnique({ where: { id: hostId }, select: { id: true, simulated: true, tokenHash: true } });
  if (!existing) throw new AppError("not_found", "No such host");
  if (!existing.tokenHash) throw new AppError("bad_request", "This host is the server's own agent and has no token");
  const token = newHostToken();
  const host = await db().$transaction(async (tx) => {
    const updated = await tx.host.update({
      where: { id: hostId },
      data: { tokenHash: hashToken(token), tokenPrefix: token.slice(0, TOKEN_PREFIX.length + 4) },
      select: hostSelect,
    });
    await writeAudit(tx, { action: "host.rotate", entityType: "host", entityId: hostId, before: { name: updated.name }, after: { name: updated.name, token: "new" } });
    return updated;
  });
  return { host, token };
}

/** Removes a host, its GPUs and its token. Hosts with bookings on record are kept for history. */
export async function removeHost(hostId: string): Promise<RegisteredHost> {
  const host = await db().host.findUnique({ where: { id: hostId }, select: { ...hostSelect, _count: { select: { reservations: true } } } });
  if (!host) throw new AppError("not_found", "No such host");
  if (host._count.reservations > 0) {
    throw new AppError("conflict", `${host.name} has bookings on record; rotate its token instead of removing it`);
  }
  await db().$transaction(async (tx) => {
    await tx.host.delete({ where: { id: hostId } });
    await writeAudit(tx, { action: "host.remove", entityType: "host", entityId: hostId, before: { name: host.name } });
  });
  return { id: host.id, name: host.name, simulated: host.simulated };
}

export interface HostSummary extends RegisteredHost {
  tokenPrefix: string | null;
  lastSeenAt: Date | null;
  driverVersion: string | null;
  cudaVersion: string | null;
  /** Physical GPUs: a GPU split into MIG slices counts once (lib/domain/unit-count.ts). */
  gpuCount: number;
  /** The one count: GPUs, bookable units (whole GPUs and slices), split GPUs and their slices. */
  units: UnitCount;
  createdAt: Date;
  /** The RDMA devices its agent last reported; null: none, or not reported. */
  fabric: HostFabric | null;
  /** The admin's name for its fabric. */
  fabricLabel: string | null;
  /** The Slurm NodeName an admin mapped it to; null: its own name. */
  slurmNode: string | null;
}

export async function listHostSummaries(): Promise<HostSummary[]> {
  const rows = await db().host.findMany({
    select: {
      ...hostSelect,
      tokenPrefix: true,
      lastSeenAt: true,
      driverVersion: true,
      cudaVersion: true,
      createdAt: true,
      fabric: true,
      fabricLabel: true,
      slurmNode: true,
      gpus: { select: { index: true, migMode: true, migDeviceIndex: true, migProfile: true } },
    },
    orderBy: { name: "asc" },
  });
  return rows.map(({ gpus, fabric, ...row }) => {
    const units = countUnits(gpus.map((gpu) => ({ index: gpu.index, migMode: gpu.migMode, mig: gpu.migDeviceIndex === null ? null : { deviceIndex: gpu.migDeviceIndex, profile: gpu.migProfile ?? "" } })));
    return { ...row, fabric: parseStoredFabric(fabric), gpuCount: units.gpus, units };
  });
}
