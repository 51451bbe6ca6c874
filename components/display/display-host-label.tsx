import type { LiveHost } from "@/lib/live";
import type { DisplayTile } from "@/lib/display-state";
import { formatAge } from "@/lib/display-time";

interface DisplayHostLabelProps {
  host: LiveHost;
  /** The host's tiles on the whole display (not only this page's slice). */
  tiles: DisplayTile[];
  /** Set when the block is a slice of a host too large for one page: "GPUs 0–31". */
  slice: { first: number; last: number } | null;
  width: number;
  fontSize: number;
  /** Server-clock now, for how long an offline host has been silent. */
  nowMs: number;
}

/** The host's name, whether it answers, what it has and how much of it is free. */
export function DisplayHostLabel({ host, tiles, slice, width, fontSize, nowMs }: DisplayHostLabelProps) {
  const models = [...new Set(tiles.map((tile) => tile.model))];
  const free = tiles.filter((tile) => tile.state === "free").length;
  const lastSeen = host.lastSeenAt ? Date.parse(host.lastSeenAt) : Number.NaN;

  return (
    <div
      data-testid="display-host-label"
      className="flex shrink-0 flex-col gap-[0.25em] overflow-hidden rounded-md border-2 border-zinc-700 bg-zinc-950 px-[0.55em] py-[0.4em] text-white"
      style={{ width, fontSize, lineHeight: 1.2 }}
    >
      <h2 className="font-bold [overflow-wrap:anywhere]" style={{ fontSize: fontSize * 1.15 }}>
        {host.name}
      </h2>
      {slice && (
        <p className="text-zinc-300">
          GPUs {slice.first}–{slice.last}
        </p>
      )}
      <p className={`flex items-center gap-[0.4em] font-semibold ${host.online ? "text-emerald-300" : "text-zinc-300"}`}>
        <span aria-hidden className={`inline-block size-[0.6em] shrink-0 rounded-full ${host.online ? "bg-emerald-400" : "bg-zinc-500"}`} />
        {host.online ? "online" : Number.isFinite(lastSeen) ? `offline ${formatAge(nowMs - lastSeen)}` : "offline"}
      </p>
      <p className="text-zinc-200">
        {tiles.length} × {models.join(", ")}
      </p>
      {host.online && (
        <p className="font-semibold text-white">
          {free} free
        </p>
      )}
    </div>
  );
}
