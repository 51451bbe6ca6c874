interface DisplayStaleBannerProps {
  /** "14:05:09", or null when nothing ever arrived. */
  sinceLabel: string | null;
  age: string | null;
  /** The server refused the connection (a revoked token, an expired session) rather than being out of reach. */
  refused: boolean;
  height: number;
  scale: number;
}

/**
 * Covers the summary strip while the screen shows old data, loud enough to
 * read from the door, so that nobody walks to a GPU a frozen tile calls free.
 */
export function DisplayStaleBanner({ sinceLabel, age, refused, height, scale }: DisplayStaleBannerProps) {
  return (
    <div
      role="alert"
      data-testid="display-stale-banner"
      className="absolute inset-x-0 top-0 z-10 flex items-center gap-[0.8em] overflow-hidden rounded-md border-4 border-black bg-amber-300 px-[0.8em] font-bold text-black"
      style={{ height, fontSize: 26 * scale, lineHeight: 1.1 }}
    >
      <span aria-hidden>⚠</span>
      <span className="whitespace-nowrap uppercase">Stale{sinceLabel ? ` since ${sinceLabel}` : ""}</span>
      {age && <span className="whitespace-nowrap tabular-nums">({age} without updates)</span>}
      <span className="min-w-0 truncate font-semibold">
        {refused ? "— the server refused this display (revoked token?); trying again" : "— reconnecting by itself"}
      </span>
    </div>
  );
}
