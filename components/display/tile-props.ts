import type { DisplayTile } from "@/lib/live/display-state";
import type { tileTypography } from "@/lib/display-layout";
import { formatDisplayTime } from "@/lib/format/display-time";

export interface DisplayTileProps {
  tile: DisplayTile;
  hostName: string;
  width: number;
  height: number;
  typography: ReturnType<typeof tileTypography>;
  /** Server-clock now, for "until 14:00" against the display's calendar day. */
  nowMs: number;
}

function sameTile(a: DisplayTile, b: DisplayTile): boolean {
  return (
    a.uuid === b.uuid &&
    a.index === b.index &&
    a.hostId === b.hostId &&
    a.model === b.model &&
    a.state === b.state &&
    a.utilizationPct === b.utilizationPct &&
    a.memoryUsedMiB === b.memoryUsedMiB &&
    a.memoryTotalMiB === b.memoryTotalMiB &&
    a.temperatureC === b.temperatureC &&
    a.bookedBy?.name === b.bookedBy?.name &&
    a.bookedBy?.until === b.bookedBy?.until &&
    a.unseen === b.unseen &&
    a.runnerName === b.runnerName &&
    a.slurm?.kind === b.slurm?.kind &&
    a.slurm?.id === b.slurm?.id &&
    a.slurm?.until === b.slurm?.until
  );
}

/**
 * React.memo's comparison for the wall's tiles. The display renders once a
 * second for the clock and once for the delta, and builds every tile anew
 * each time; a tile is drawn again only when what it shows changed: its
 * values, its size, or the clock where the clock moves its "until" label
 * (the day changed).
 */
export function sameTileProps(prev: DisplayTileProps, next: DisplayTileProps): boolean {
  if (prev.hostName !== next.hostName || prev.width !== next.width || prev.height !== next.height) return false;
  const a = prev.typography;
  const b = next.typography;
  if (a.utilization !== b.utilization || a.text !== b.text || a.padding !== b.padding || a.gap !== b.gap) return false;
  if (!sameTile(prev.tile, next.tile)) return false;
  const until = next.tile.bookedBy?.until ?? next.tile.slurm?.until ?? undefined;
  return prev.nowMs === next.nowMs || until === undefined || formatDisplayTime(until, prev.nowMs) === formatDisplayTime(until, next.nowMs);
}
