import type { Prisma, PrismaClient } from "@prisma/client";
import type { BookingView } from "@/lib/domain/booking-types";
import { currentUnits, unitOrder, unitSelect } from "@/server/bookings/placement/host-units";
import { readOpenBookingsOfUnit } from "@/server/bookings/store/booking-rows";

type Client = PrismaClient | Prisma.TransactionClient;

/**
 * The units of these hosts that are gone, by UUID: a stored MIG slice that
 * is not one of its host's units now (`currentUnits`: its GPU left MIG
 * mode, or its MIG layout changed and the slice was not seen with it
 * since), and a GPU split into slices since (its slices are the units now).
 * Read from the inventory as stored, so the answer is the same after a
 * restart; a slice seen again under its MIG UUID, or a GPU whole again, is
 * a unit again and no longer gone.
 */
export async function findGoneUnits(client: Client, hostIds: string[]): Promise<Set<string>> {
  const gone = new Set<string>();
  if (hostIds.length === 0) return gone;
  const rows = await client.gpu.findMany({ where: { hostId: { in: [...new Set(hostIds)] } }, orderBy: unitOrder, select: { ...unitSelect, hostId: true } });
  const byHost = new Map<string, typeof rows>();
  for (const row of rows) byHost.set(row.hostId, [...(byHost.get(row.hostId) ?? []), row]);
  for (const hostRows of byHost.values()) {
    const units = currentUnits(hostRows);
    const current = new Set(units.filter((unit) => !unit.partitioned).map((unit) => unit.uuid));
    for (const unit of units) if (unit.partitioned) gone.add(unit.uuid);
    for (const row of hostRows) if (row.migDeviceIndex !== null && !current.has(row.uuid)) gone.add(row.uuid);
  }
  return gone;
}

/**
 * Marks the bookings still to come or running whose unit is gone
 * (`sliceGone`, and `gone` on the unit): a slice its GPU's new layout
 * destroyed, or a whole GPU split since. The booker rebooks.
 */
export async function withGoneSlices(client: Client, views: BookingView[]): Promise<BookingView[]> {
  const open = views.filter((view) => view.state === "active" || view.state === "scheduled");
  if (open.length === 0) return views;
  const gone = await findGoneUnits(client, open.map((view) => view.host.id));
  if (gone.size === 0) return views;
  return views.map((view) => {
    if (!open.includes(view) || !view.gpus.some((gpu) => gone.has(gpu.uuid))) return view;
    return { ...view, sliceGone: true, gpus: view.gpus.map((gpu) => (gone.has(gpu.uuid) ? { ...gpu, gone: true } : gpu)) };
  });
}

/** Bookings still to come or running on this unit (by UUID), with their bookers: who must hear that it is gone. */
export async function listOpenBookingsOfUnit(client: Client, uuid: string, now: Date): Promise<{ id: string; userId: string; startsAt: Date; endsAt: Date; purpose: string; hostName: string }[]> {
  const rows = await readOpenBookingsOfUnit(client, uuid, now);
  return rows.filter((row) => row.endsAt > row.startsAt).map(({ host, ...row }) => ({ ...row, hostName: host.name }));
}
