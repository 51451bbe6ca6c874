import type { LiveGpuSource } from "@/server/bookings/placement/gpu-in-use";
import type { AlertKind, AlertUpdate } from "@/lib/domain/alerts";
import { nodeOfLabel, multiNodeLabel, shapeOf } from "@/lib/domain/multi-node";
import { bookingPath } from "@/lib/domain/booking-link";
import { db } from "@/server/core/db";
import { notifyPerson } from "@/server/notifications/notify-person";
import { findSpareNode } from "@/server/bookings/placement/spare-node";
import { readGroupNodes } from "@/server/bookings/store/booking-parts";
import { readOpenPartsOn } from "@/server/bookings/store/notice-reads";

/** The alerts that mean a node of a job across nodes cannot go on as it is. */
const NODE_FAILURES: readonly AlertKind[] = ["host_offline", "gpu_lost", "gpu_health"];

/**
 * A node of a booking across nodes failed (its host went silent, a GPU of
 * the part was lost or reports errors): the booker hears at once which part
 * failed, and which spare node (same model, free until the end, on the
 * other nodes' fabric where one is) could stand in. Once per alert and part.
 */
export async function tellOfFailedNode(change: AlertUpdate, publicUrl?: string, now = new Date(), fleet?: LiveGpuSource): Promise<number> {
  const { alert } = change;
  if (change.event !== "opened" || !NODE_FAILURES.includes(alert.kind)) return 0;
  const on =
    alert.kind === "host_offline"
      ? alert.host
        ? { hostId: alert.host.id }
        : null
      : alert.gpu
        ? { unitUuid: alert.gpu.uuid }
        : null;
  if (!on) return 0;
  const parts = await readOpenPartsOn(on, now);
  let told = 0;
  for (const part of parts) {
    const siblings = await readGroupNodes(db(), part.groupId as string);
    const label = multiNodeLabel(shapeOf(siblings.map((sibling) => ({ gpus: sibling.gpus.map(({ gpu }) => gpu) }))));
    const node = nodeOfLabel(part.nodeRank ?? 0, siblings.length);
    const spare = await findSpareNode(part.id, now, { fleet });
    const offer = spare
      ? ` A spare is free for the rest of the booking: ${spare.hostName}, GPU${spare.gpuIndices.length > 1 ? "s" : ""} ${spare.gpuIndices.join(", ")}${spare.sameFabric ? ", on the fabric of your other nodes" : " (on another fabric than your other nodes)"}. Move the node there with: gpudesk reserve --replace-part ${part.id} --host ${spare.hostName}`
      : " No spare node of the same model is free for the rest of the booking.";
    const result = await notifyPerson(
      {
        userId: part.userId,
        event: "booking.node_failed",
        subjectId: part.id,
        title: `${node[0].toUpperCase()}${node.slice(1)} (${part.host.name}) of your booking ${label} failed`,
        text: `${alert.message}. This is ${node} of your booking "${part.purpose}" (${label}, booking ${part.groupId}).${offer}`,
        path: bookingPath(part.groupId as string),
        onceKey: `booking.node_failed:${alert.id}:${part.id}`,
        now,
      },
      { publicUrl },
    );
    if (!result.repeated) told += 1;
  }
  return told;
}
