import { countAvailability } from "@/lib/domain/gpu-availability";
import { hostInventoryText, type DisplayFeedHost, type DisplayTile } from "@/lib/live/display-state";
import { LABEL_MIN_PX, LABEL_NAME_PX } from "@/lib/display-layout";
import { formatAge } from "@/lib/format/display-time";
import { fitLine } from "@/lib/format/fit-text";

interface DisplayHostLabelProps {
  host: DisplayFeedHost;
  /** The host's tiles on the whole display (not only this page's slice). */
  tiles: DisplayTile[];
  /** Set when the block is a slice of a host too large for one page: "GPUs 0–31". */
  slice: { first: number; last: number } | null;
  width: number;
  scale: number;
  /** The tiles' text size: on a screen of few, large tiles the label reads larger too. */
  tileText: number;
  /** Server-clock now, for how long an offline host has been silent. */
  nowMs: number;
}

/** The words under the name: "online", "offline 5 min". */
export function hostStatusText(host: Pick<DisplayFeedHost, "online" | "lastSeenAt">, nowMs: number): string {
  if (host.online) return "online";
  const lastSeen = host.lastSeenAt ? Date.parse(host.lastSeenAt) : Number.NaN;
  return Number.isFinite(lastSeen) ? `offline ${formatAge(nowMs - lastSeen)}` : "offline";
}

/**
 * The host's name, whether it answers, what it has and how much of it is
 * free. The name and the status each stay on one line: the layout makes the
 * label wide enough for the longest name, and a name longer than that gets
 * a smaller size, then a shortening in the middle (the whole name stays in
 * the section's accessible name).
 */
export function DisplayHostLabel({ host, tiles, slice, width, scale, tileText, nowMs }: DisplayHostLabelProps) {
  const models = hostInventoryText(tiles);
  const { free } = countAvailability(tiles.map((tile) => tile.state));
  // The tiles' text size, within bounds: small tiles leave a short label, whose lines must all fit.
  const text = Math.max(LABEL_MIN_PX * scale, Math.min(tileText, 22 * scale));
  const inner = width - 2 * 0.55 * text - 4;
  const family = typeof document === "undefined" ? "sans-serif" : getComputedStyle(document.body).fontFamily;
  // The layout gave the label room for the name at LABEL_NAME_PX; where there is more, the name takes it.
  const name = fitLine(host.name, inner, { weight: 700, family, maxPx: Math.max(LABEL_NAME_PX * scale, text * 1.25), minPx: LABEL_MIN_PX * scale });
  const status = hostStatusText(host, nowMs);
  // The dot and its gap take 1 em of the line.
  const statusLine = fitLine(status, inner - text, { weight: 600, family, maxPx: text, minPx: LABEL_MIN_PX * scale });

  return (
    <div
      data-testid="display-host-label"
      className="flex shrink-0 flex-col gap-[0.25em] overflow-hidden rounded-md border-2 border-zinc-700 bg-zinc-950 px-[0.55em] py-[0.4em] text-white"
      style={{ width, fontSize: text, lineHeight: 1.2 }}
    >
      <h2 data-testid="display-host-name" className="overflow-hidden font-bold whitespace-nowrap" style={{ fontSize: name.fontPx }} title={name.shortened ? host.name : undefined}>
        {name.text}
      </h2>
      {slice && (
        <p className="text-zinc-300">
          GPUs {slice.first}–{slice.last}
        </p>
      )}
      <p
        data-testid="display-host-status"
        className={`flex items-center gap-[0.4em] overflow-hidden font-semibold whitespace-nowrap ${host.online ? "text-emerald-300" : "text-zinc-300"}`}
        style={{ fontSize: statusLine.fontPx }}
      >
        <span aria-hidden className={`inline-block size-[0.6em] shrink-0 rounded-full ${host.online ? "bg-emerald-400" : "bg-zinc-500"}`} />
        {statusLine.text}
      </p>
      <p className="text-zinc-200">
        {models}
      </p>
      {host.online && <p className="font-semibold text-white">{free} free</p>}
    </div>
  );
}
