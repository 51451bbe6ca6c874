import { memo, type CSSProperties } from "react";
import { DASH, ratioPercent } from "@/lib/format/format";
import { DISPLAY_STATE_LABELS, type DisplayTile as Tile } from "@/lib/live/display-state";
import { slurmStateWords, slurmWallWords } from "@/lib/domain/slurm";
import { formatDisplayTime } from "@/lib/format/display-time";
import { fitTileText } from "@/lib/format/display-tile-text";
import { measureText } from "@/lib/format/fit-text";
import { sameTileProps, type DisplayTileProps } from "@/components/display/tile-props";
import { STATE_TILE_STYLES } from "@/components/ui/gpu-state-colours";

/** One GPU on the wall: state, utilization, memory, and who holds it until when. Nothing hides behind a hover. */
export const DisplayTile = memo(function DisplayTile({ tile, hostName, width, height, typography, nowMs }: DisplayTileProps) {
  const style = STATE_TILE_STYLES[tile.state];
  const memoryPct = ratioPercent(tile.memoryUsedMiB, tile.memoryTotalMiB);
  const offline = tile.state === "offline";
  const utilization = tile.utilizationPct === null || offline ? DASH : `${Math.round(tile.utilizationPct)}%`;
  const bookedBy = bookerLine(tile, nowMs);
  // The temperature sits beside the big number only where "100%" and "100°C" both fit (bold digits ≈ 0.62 em).
  const roomForTemperature = 4 * 0.62 * typography.utilization + 5 * 0.62 * typography.text + typography.text <= width - 2 * typography.padding - 4;
  const text: CSSProperties = { fontSize: typography.text, lineHeight: 1.2 };
  const unit = tile.slice ? `${tile.slice.ref} ${tile.slice.profile}` : `GPU ${tile.index}`;
  // Slurm's hold says "SLURM · job 42 · until 21:00" rather than "UNBOOKED": it is no one's use without a booking.
  const stateLabel = tile.slurm ? slurmWallWords(tile.slurm, (iso) => formatDisplayTime(iso, nowMs)).state : DISPLAY_STATE_LABELS[tile.state];
  const ariaState = tile.slurm ? slurmStateWords({ ...tile.slurm, user: null }, (iso) => formatDisplayTime(iso, nowMs)) : DISPLAY_STATE_LABELS[tile.state];
  const fitted = fitTileText(
    { unit, unitShort: tile.slice ? tile.slice.ref : unit, state: stateLabel.toUpperCase(), who: bookedBy.who, when: bookedBy.when, innerWidth: width - 2 * typography.padding - 4, gapPx: typography.text / 2 },
    tileTextWidths(typography.text),
  );

  return (
    <li
      data-testid="display-tile"
      data-state={tile.state}
      data-slurm={tile.slurm?.kind}
      data-uuid={tile.uuid}
      aria-label={`${tile.slice ? `MIG slice ${tile.slice.ref} ${tile.slice.profile}` : `GPU ${tile.index}`} on ${hostName}: ${ariaState}`}
      className={`flex min-w-0 flex-col overflow-hidden rounded-md border-2 ${style.tile}`}
      style={{ width, height, padding: typography.padding, gap: typography.gap }}
    >
      <div className="flex min-w-0 items-baseline justify-between gap-[0.5em]" style={text}>
        <span data-testid="display-tile-unit" className="shrink-0 font-bold tabular-nums" title={fitted.unit === unit ? undefined : unit}>
          {fitted.unit}
        </span>
        <span data-testid="display-tile-state" className="min-w-0 truncate font-bold uppercase tracking-wide">
          {stateLabel}
        </span>
      </div>

      <div className="flex min-h-0 min-w-0 flex-1 items-center justify-between gap-[0.5em]">
        <span
          data-testid="display-util"
          className="shrink-0 font-bold tabular-nums"
          style={{ fontSize: typography.utilization, lineHeight: 1 }}
          aria-label={`Utilization ${utilization}`}
        >
          {utilization}
        </span>
        {tile.temperatureC !== null && !offline && roomForTemperature && (
          <span data-testid="display-temperature" className={`shrink-0 font-semibold tabular-nums ${style.muted}`} style={text}>
            {Math.round(tile.temperatureC)}°C
          </span>
        )}
      </div>

      <div className="flex min-w-0 shrink-0 items-center gap-[0.5em]" style={text}>
        <div
          role="meter"
          aria-label="Memory used"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={memoryPct === null ? undefined : Math.round(memoryPct)}
          className={`min-w-[2em] flex-1 overflow-hidden rounded-full ${style.track}`}
          style={{ height: Math.max(6, Math.round(height * 0.055)) }}
        >
          {memoryPct !== null && !offline && <div className="h-full rounded-full bg-current" style={{ width: `${Math.max(memoryPct, 1)}%` }} />}
        </div>
        <span data-testid="display-memory" className={`shrink-0 font-semibold whitespace-nowrap tabular-nums ${style.muted}`}>
          {formatMemoryShort(tile.memoryUsedMiB, tile.memoryTotalMiB)}
        </span>
      </div>

      {/* The name gives way before the time: "until 14:00" must never be cut off. */}
      <p data-testid="display-booker" className="flex min-w-0 shrink-0 font-semibold whitespace-nowrap" style={text}>
        <span data-testid="display-booker-name" className="min-w-0 truncate" title={fitted.who === bookedBy.who ? undefined : bookedBy.who}>
          {fitted.who}
        </span>
        {bookedBy.when && <span className="shrink-0">{`\u00a0· ${bookedBy.when}`}</span>}
      </p>
    </li>
  );
}, sameTileProps);

let pageFont: string | null = null;

/** Widths in the page's own font at a tile's text size (tracking-wide is 0.025 em a letter). */
function tileTextWidths(px: number) {
  pageFont ??= typeof document === "undefined" ? "sans-serif" : getComputedStyle(document.body).fontFamily;
  const family = pageFont;
  return {
    bold: (text: string) => measureText(text, px, { weight: 700, family }),
    state: (text: string) => measureText(text, px, { weight: 700, family }) + [...text].length * 0.025 * px,
    semibold: (text: string) => measureText(text, px, { weight: 600, family }),
  };
}

/** "45 / 80 GiB" in whole GiB: tenths are noise at this distance. */
function formatMemoryShort(usedMiB: number | null, totalMiB: number | null): string {
  if (usedMiB === null && totalMiB === null) return DASH;
  const gib = (mib: number | null) => (mib === null ? DASH : String(Math.round(mib / 1024)));
  return `${gib(usedMiB)} / ${gib(totalMiB)} GiB`;
}

function bookerLine(tile: Tile, nowMs: number): { who: string; when: string | null } {
  if (tile.state === "offline") return { who: "host offline", when: null };
  if (tile.bookedBy) return { who: tile.bookedBy.name, when: `until ${formatDisplayTime(tile.bookedBy.until, nowMs)}` };
  // Nobody to name: the job runs where nvidia-smi cannot see it.
  if (tile.state === "unbooked_use" && tile.slurm) {
    const words = slurmWallWords(tile.slurm, (iso) => formatDisplayTime(iso, nowMs));
    return { who: words.who, when: words.when };
  }
  if (tile.state === "unbooked_use" && tile.runnerName) return { who: tile.runnerName, when: "no booking" };
  if (tile.state === "unbooked_use") return { who: tile.unseen ? "no process visible" : "no booking", when: null };
  if (tile.state === "error") return { who: "GPU fault", when: null };
  // A non-breaking space keeps the line's height, so that tiles line up.
  return { who: "\u00a0", when: null };
}
