import { isPartitioned } from "@/lib/domain/gpu-availability";

/** The Gpu columns the unit rules read. */
export const unitSelect = {
  id: true,
  uuid: true,
  index: true,
  name: true,
  memoryTotalMiB: true,
  migMode: true,
  parentUuid: true,
  migDeviceIndex: true,
  migProfile: true,
  lastSeenAt: true,
} as const;

export interface UnitRow {
  id: string;
  uuid: string;
  index: number;
  name: string;
  memoryTotalMiB: number | null;
  migMode: string | null;
  parentUuid: string | null;
  migDeviceIndex: number | null;
  migProfile: string | null;
  lastSeenAt: Date;
}

/** A unit of booking on a host now: a whole GPU, or a MIG slice (`mig`); a partitioned GPU is one too, marked, never booked. */
export interface HostUnit {
  id: string;
  uuid: string;
  index: number;
  name: string;
  memoryTotalMiB: number | null;
  mig: { deviceIndex: number; profile: string } | null;
  /** A slice's GPU (its UUID); null on a whole GPU. */
  parentUuid: string | null;
  partitioned: boolean;
}


/**
 * The units a host has now, from its Gpu rows, in index then MIG device
 * order: a GPU replaced in a host leaves its old row behind under the same
 * index (the one seen last is the GPU), and a MIG layout that changed
 * leaves its destroyed slices behind (a slice is a unit while its GPU is
 * partitioned and it was seen with it: its last-seen time is its GPU's,
 * since every write of last-seen times gives a reading's units one time,
 * and a slice the layout dropped is older from the first write without it,
 * seconds after the change). Rows must come ordered by index,
 * MIG device index and last sighting, newest first.
 */
export function currentUnits(rows: UnitRow[]): HostUnit[] {
  const wholes = rows.filter((gpu) => gpu.migDeviceIndex === null);
  const latest = wholes.filter((gpu, position) => position === 0 || wholes[position - 1]!.index !== gpu.index);
  const units: HostUnit[] = [];
  for (const gpu of latest) {
    const partitioned = isPartitioned({ index: gpu.index, migMode: gpu.migMode });
    units.push({ id: gpu.id, uuid: gpu.uuid, index: gpu.index, name: gpu.name, memoryTotalMiB: gpu.memoryTotalMiB, mig: null, parentUuid: null, partitioned });
    if (!partitioned) continue;
    const slices = rows.filter((row) => row.parentUuid === gpu.uuid && row.lastSeenAt.getTime() >= gpu.lastSeenAt.getTime());
    for (const [position, slice] of slices.entries()) {
      if (position > 0 && slices[position - 1]!.migDeviceIndex === slice.migDeviceIndex) continue;
      units.push({
        id: slice.id,
        uuid: slice.uuid,
        index: gpu.index,
        name: slice.name,
        memoryTotalMiB: slice.memoryTotalMiB,
        mig: { deviceIndex: slice.migDeviceIndex!, profile: slice.migProfile ?? "" },
        parentUuid: gpu.uuid,
        partitioned: false,
      });
    }
  }
  return units;
}

/** The order `currentUnits` reads rows in. */
export const unitOrder = [{ index: "asc" as const }, { migDeviceIndex: "asc" as const }, { lastSeenAt: "desc" as const }];
