import { memo } from "react";
import { SPARKLINE_POINTS, type GpuPoint } from "@/lib/live/live";

interface SparklineProps {
  points: GpuPoint[];
  /** Drawn grey when the host is offline: these are the last values, not live ones. */
  stale?: boolean;
  className?: string;
}

const WIDTH = 120;
const HEIGHT = 32;
const STEP = WIDTH / (SPARKLINE_POINTS - 1);

function xOf(slot: number): string {
  return (slot * STEP).toFixed(1);
}

function yOf(util: number): string {
  return (HEIGHT - 1 - (Math.min(100, Math.max(0, util)) / 100) * (HEIGHT - 2)).toFixed(1);
}

// Every card draws its sparkline anew each second: the coordinates of the
// sixty slots and of each whole percent are formatted once, not per point.
const X_OF_SLOT = Array.from({ length: SPARKLINE_POINTS }, (_, slot) => xOf(slot));
const Y_OF_PERCENT = Array.from({ length: 101 }, (_, util) => yOf(util));

/** The path of a line through the points; a null value breaks it into segments. */
export function sparklinePaths(points: GpuPoint[]): string[] {
  const offset = SPARKLINE_POINTS - points.length;
  const segments: string[] = [];
  let current = "";
  for (let i = 0; i < points.length; i += 1) {
    const util = points[i].util;
    if (util === null) {
      if (current) segments.push(current);
      current = "";
      continue;
    }
    const slot = offset + i;
    const x = X_OF_SLOT[slot] ?? xOf(slot);
    const y = Number.isInteger(util) && util >= 0 && util <= 100 ? Y_OF_PERCENT[util] : yOf(util);
    current += `${current ? "L" : "M"}${x} ${y}`;
  }
  if (current) segments.push(current);
  return segments;
}

/**
 * The last minute of utilization (0–100 %) as a plain SVG: sixty points on
 * every card of the fleet once a second is far cheaper than a chart library.
 * The x position comes from the slot, newest at the right edge, so a short
 * history grows in from the right instead of stretching across the card.
 * A null value breaks the line instead of dropping it to zero.
 */
export const Sparkline = memo(function Sparkline({ points, stale = false, className = "" }: SparklineProps) {
  const segments = sparklinePaths(points);
  const color = stale ? "var(--color-offline)" : "var(--chart-util)";

  return (
    <svg
      aria-hidden
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      preserveAspectRatio="none"
      className={`h-8 w-full overflow-visible ${className}`}
    >
      <line x1={0} x2={WIDTH} y1={HEIGHT - 0.5} y2={HEIGHT - 0.5} stroke="var(--chart-grid)" strokeWidth={1} vectorEffect="non-scaling-stroke" />
      {segments.map((d, i) => (
        <path
          key={i}
          d={d}
          fill="none"
          stroke={color}
          strokeWidth={1.75}
          strokeLinejoin="round"
          strokeLinecap="round"
          vectorEffect="non-scaling-stroke"
        />
      ))}
    </svg>
  );
});
