import type { PrismaClient } from "@prisma/client";
import { commonModel } from "@/lib/domain/multi-node";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import type { Actor } from "@/server/access/actor";
import { can } from "@/server/access/permissions";
import type { HostRef } from "@/server/bookings/placement/booking-candidates";
import { fabricsOf } from "@/server/bookings/placement/place-nodes";
import { type LiveGpuSource, liveView } from "@/server/bookings/placement/gpu-in-use";
import { placeUnits } from "@/server/bookings/placement/place-units";
import { readPolicy } from "@/server/bookings/rules/policy";
import { readBookingOwner, readGroupHostIds, readPartForSpare } from "@/server/bookings/store/booking-parts";

export interface SpareNode {
  hostName: string;
  gpuIndices: number[];
  /** On the fabric of the booking's other nodes. */
  sameFabric: boolean;
}

/**
 * A node that could stand in for a failed part of a booking across nodes:
 * another host with as many GPUs of the part's model free from now (or the
 * part's start) to its end, by the same rule as "any N GPUs", on the fabric
 * of the booking's other nodes where one such host is. Null when none is.
 * Reads only: offering a spare books nothing.
 */
export async function findSpareNode(partId: string, now: Date, options: { client?: PrismaClient; fleet?: LiveGpuSource } = {}): Promise<SpareNode | null> {
  const client = options.client ?? db();
  const part = await readPartForSpare(client, partId);
  if (!part?.groupId) return null;
  const taken = new Set(await readGroupHostIds(client, part.groupId));
  const hosts: HostRef[] = await client.host.findMany({ where: { gpus: { some: {} }, id: { notIn: [...taken] } }, select: { id: true, name: true, topology: true }, orderBy: { name: "asc" } });
  const window = { startMs: Math.max(now.getTime(), part.startsAt.getTime()), endMs: part.endsAt.getTime(), nowMs: now.getTime() };
  if (hosts.length === 0 || window.endMs <= window.startMs) return null;
  const model = commonModel(part.gpus.map(({ gpu }) => gpu.name)) ?? undefined;
  const live = liveView(options.fleet);

  return client.$transaction(async (tx) => {
    const policy = await readPolicy(tx);
    const fitting: { host: HostRef; gpuIndices: number[] }[] = [];
    for (const host of hosts) {
      try {
        const [picked] = (await placeUnits(tx, { kind: "any-gpus", count: part.gpus.length, model }, [host], live, window, policy)).parts;
        fitting.push({ host, gpuIndices: picked.gpus.map((gpu) => gpu.index) });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
      }
    }
    if (fitting.length === 0) return null;
    const fabrics = await fabricsOf(tx, [...fitting.map((entry) => entry.host.id), ...[...taken].filter((id) => id !== part.hostId)]);
    const healthy = [...taken].filter((id) => id !== part.hostId).map((id) => fabrics.get(id)?.key).find((key) => key !== undefined);
    const same = fitting.find((entry) => healthy !== undefined && fabrics.get(entry.host.id)?.key === healthy);
    const chosen = same ?? fitting[0];
    return { hostName: chosen.host.name, gpuIndices: chosen.gpuIndices, sameFabric: same !== undefined };
  });
}

/**
 * The spare offered to whoever may move the node (its booker, an admin):
 * what the booking card shows beside a failed node, with the button that
 * moves it there (replacePart). 404 for anyone else, as for the booking.
 */
export async function offerSpare(actor: Actor, partId: string, now: Date, options: { client?: PrismaClient; fleet?: LiveGpuSource } = {}): Promise<{ spare: SpareNode | null }> {
  const client = options.client ?? db();
  const part = await readBookingOwner(client, partId);
  if (!part || !can.manageBooking(actor, part)) throw new AppError("not_found", "No such reservation");
  if (!part.groupId) throw new AppError("bad_request", "Only a node of a booking across nodes has a spare");
  return { spare: await findSpareNode(partId, now, options) };
}
