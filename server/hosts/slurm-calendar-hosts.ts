import type { PrismaClient } from "@prisma/client";
import type { SlurmCalendar } from "@/lib/domain/slurm";
import { db } from "@/server/core/db";
import { buildSlurmCalendar } from "@/server/slurm/slurm-calendar";
import type { SlurmConnection } from "@/server/slurm/slurm-connection";

/**
 * Lays the connection's last jobs and reservations lists onto gpudesk's
 * hosts (their Slurm node, their whole GPUs) and keeps the result on the
 * connection, where the availability rule (the tick), the occupancy
 * (placement, the queue's estimate), the schedule and the form read it.
 * One database read; no call to Slurm.
 */
export async function refreshSlurmCalendar(connection: SlurmConnection, nowMs = Date.now(), client: PrismaClient = db()): Promise<SlurmCalendar> {
  const hosts = await client.host.findMany({
    select: { id: true, name: true, slurmNode: true, gpus: { where: { parentUuid: null }, orderBy: { index: "asc" }, select: { id: true, uuid: true, index: true } } },
  });
  const onNodes = hosts.map((host) => ({ id: host.id, name: host.name, node: connection.nodeOf(host), gpus: host.gpus }));
  connection.hostsOnNodes = onNodes.flatMap((host) => (host.node ? [{ node: host.node, host: host.name }] : []));
  connection.calendar = buildSlurmCalendar(connection.jobs, connection.reservations, onNodes, nowMs, connection.partitions);
  return connection.calendar;
}
