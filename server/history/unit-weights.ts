import { Prisma } from "@prisma/client";
import { gpuShareOf } from "@/lib/domain/gpu-share";
import { db } from "@/server/core/db";
import type { TableSql } from "@/server/history/resolution";

/** How much of a GPU a unit's rollup rows stand for, and which GPU it is part of. */
export interface UnitWeight {
  /** 1 for a whole GPU, a MIG slice's share of its GPU (lib/domain/gpu-share.ts). */
  share: number;
  /** The physical GPU: the slice's parent, else the unit itself. Counting these counts GPUs, not slices. */
  gpu: string;
}

/**
 * Leaves out the rollup rows (alias `r`) of a GPU split into MIG slices at
 * the times its slices report: its slices are then its capacity, and its
 * own row (no utilization under MIG, memory its slices') would count the
 * GPU a second time. Before the split, or after it is undone, the parent's
 * rows count as any whole GPU's. An hour row goes when any slice reported
 * in that hour. The uncorrelated IN list is computed once, so the
 * correlated EXISTS runs only for the few parents' rows.
 */
export function notWhileSliced(t: TableSql): Prisma.Sql {
  const table = Prisma.raw(t.table);
  const column = Prisma.raw(t.timeColumn);
  return Prisma.sql`NOT (r."gpuUuid" IN (SELECT "parentUuid" FROM "Gpu" WHERE "parentUuid" IS NOT NULL) AND EXISTS (
      SELECT 1 FROM "Gpu" sg JOIN ${table} s ON s."gpuUuid" = sg."uuid" AND s.${column} = r.${column}
      WHERE sg."parentUuid" = r."gpuUuid"))`;
}

/**
 * `notWhileSliced`, or nothing to leave out when no GPU is split (most
 * fleets): the clause costs a lookup per row, a third of a year's GPU-time
 * sum on SQLite (docs/benchmark.md). `split`: whether some GPU is.
 */
export async function notWhileSlicedWhere(t: TableSql): Promise<{ where: Prisma.Sql; split: boolean }> {
  const split = (await db().gpu.findFirst({ where: { parentUuid: { not: null } }, select: { uuid: true } })) !== null;
  return { where: split ? notWhileSliced(t) : Prisma.sql`1 = 1`, split };
}

/** Each unit's weight in GPU-hours; a unit no longer in the inventory counts as a whole GPU of its own. */
export async function unitWeights(uuids: readonly string[]): Promise<(uuid: string) => UnitWeight> {
  const gpus = uuids.length === 0 ? [] : await db().gpu.findMany({ where: { uuid: { in: [...uuids] } }, select: { uuid: true, name: true, migProfile: true, parentUuid: true } });
  const byUuid = new Map(gpus.map((gpu) => [gpu.uuid, { share: gpuShareOf(gpu), gpu: gpu.parentUuid ?? gpu.uuid }]));
  return (uuid) => byUuid.get(uuid) ?? { share: 1, gpu: uuid };
}
