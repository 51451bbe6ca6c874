"use client";

import { memo, useDeferredValue, useEffect, useLayoutEffect, useMemo, useSyncExternalStore } from "react";
import { getDisplayFeed, getServerDisplayFeed, reconnectDisplayFeed, retainDisplayFeed, subscribeDisplayFeed } from "@/components/live/display-feed-store";
import type { DisplayFeedState } from "@/lib/live/display-feed";
import { burnInOffset, displayMetrics, pageAt, planDisplay, tileTypography } from "@/lib/display-layout";
import type { DisplayLayout } from "@/lib/display-query";
import { displayTiles, filterHosts, summarizeTiles } from "@/lib/live/display-state";
import { formatAge, formatUpdateTime } from "@/lib/format/display-time";
import { setLiveSocketDisplayScope, setLiveSocketToken } from "@/components/live/live-socket";
import { useNow } from "@/components/live/use-now";
import { useViewport } from "@/components/live/use-viewport";
import { DisplayHostLabel, hostStatusText } from "@/components/display/display-host-label";
import { DisplayMessage } from "@/components/display/display-message";
import { DisplayOverview } from "@/components/display/display-overview";
import { DisplayStaleBanner } from "@/components/display/display-stale-banner";
import { DisplaySummaryStrip } from "@/components/display/display-summary-strip";
import { DisplayTile } from "@/components/display/display-tile";

/** With a delta every second, ten seconds of silence means something is wrong. */
export const STALE_AFTER_MS = 10_000;
/** After the server refused the socket (socket.io gives up then), try again this often: nobody is there to press a button. */
const REFUSED_RETRY_MS = 10_000;
/** The picture moves by a few pixels this often, against burn-in on panels that never sleep. */
const BURN_IN_STEP_MS = 120_000;

interface DisplayViewProps {
  /** The display token the server accepted, or null for a signed-in person's session. */
  token: string | null;
  hostNames: string[] | null;
  rotateSeconds: number;
  layout: DisplayLayout;
}

/** The wall display: the whole fleet (or some hosts) on one screen, or pages of it, live, untouched all day. */
export function DisplayView({ token, hostNames, rotateSeconds, layout }: DisplayViewProps) {
  // Layout effects run before every passive effect of the commit, so the token and the
  // display scope (only these hosts) are in place before the store opens the socket.
  const hostsKey = hostNames?.join(",") ?? "";
  useLayoutEffect(() => {
    setLiveSocketToken(token);
    setLiveSocketDisplayScope({ hosts: hostsKey ? hostsKey.split(",") : null });
    return () => {
      setLiveSocketToken(null);
      setLiveSocketDisplayScope(null);
    };
  }, [token, hostsKey]);
  // The display scope of the live feed: state, load, memory, temperature and booker per GPU, nothing more.
  useEffect(() => retainDisplayFeed(), [token, hostsKey]);
  const live = useSyncExternalStore(subscribeDisplayFeed, getDisplayFeed, getServerDisplayFeed);
  const { status } = live;

  useEffect(() => {
    if (status !== "disconnected") return;
    const timer = setInterval(reconnectDisplayFeed, REFUSED_RETRY_MS);
    return () => clearInterval(timer);
  }, [status]);

  // A store's update renders at once, in one task: the first snapshot drew every tile of a
  // 256-GPU fleet in one task of 25 ms of CPU here (75 on a machine three times slower).
  // Deferred, React renders the screen in slices of a few milliseconds and commits it whole.
  const fleet = useDeferredValue(live);
  return <DisplayScreen fleet={fleet} hostNames={hostNames} rotateSeconds={rotateSeconds} layout={layout} />;
}

interface DisplayScreenProps {
  fleet: DisplayFeedState;
  hostNames: string[] | null;
  rotateSeconds: number;
  layout: DisplayLayout;
}

/** What the wall shows of the feed: memoized, so that the store's urgent render (with the deferred feed unchanged) draws nothing. */
const DisplayScreen = memo(function DisplayScreen({ fleet, hostNames, rotateSeconds, layout }: DisplayScreenProps) {
  const openAlerts = fleet.openAlerts;
  const now = useNow(1000);
  const viewport = useViewport();
  const { status } = fleet;

  const serverNow = now + fleet.clockOffsetMs;
  const { hosts, unknown } = useMemo(() => filterHosts(fleet.hosts, hostNames), [fleet.hosts, hostNames]);
  const tilesByHost = displayTiles(hosts, fleet.gpus);
  // The label keeps the name and the status on one line; the status is set a size smaller than the name.
  const labelChars = (host: (typeof hosts)[number]) => Math.max(host.name.length, Math.ceil(hostStatusText(host, serverNow).length * 0.8) + 1);
  // The plan depends only on the screen, how many GPUs each shown host has and how long its label is
  // (planKey), so it is recomputed when those change, not on every delta.
  const planInput = hosts.map((host) => ({ id: host.id, gpuCount: tilesByHost.get(host.id)?.length ?? 0, labelChars: labelChars(host) }));
  const planKey = JSON.stringify(planInput);
  const plan = useMemo(() => (viewport ? planDisplay(planInput, viewport) : null), [viewport, planKey]);

  const refused = status === "disconnected";
  if (!fleet.hasSnapshot || !viewport || !plan) {
    return refused ? (
      <DisplayMessage title="The server refused this display">
        <p>The display token may have been revoked, or the session has ended. Trying again every {REFUSED_RETRY_MS / 1000} s.</p>
      </DisplayMessage>
    ) : (
      <DisplayMessage title="Connecting to gpudesk…" tone="wait" />
    );
  }
  // The server sends only the named hosts (?hosts=): with a filter, an empty feed means none of them is in the fleet.
  if (fleet.hosts.length === 0 && !hostNames?.length) {
    return (
      <DisplayMessage title="No GPU hosts yet" tone="wait">
        <p>Hosts appear here as soon as their agents report.</p>
      </DisplayMessage>
    );
  }
  if (hosts.length === 0) {
    return (
      <DisplayMessage title="None of these hosts is in the fleet">
        <p>This screen shows only: {hostNames?.join(", ")}.</p>
      </DisplayMessage>
    );
  }

  const overview = layout === "overview";
  // The overview never pages: it takes the screen's own scale and shrinks its cells instead.
  const metrics = overview ? displayMetrics(viewport) : plan.metrics;
  const pageIndex = overview ? 0 : pageAt(now, plan.pages.length, rotateSeconds * 1000);
  const page = plan.pages[pageIndex];
  const typography = tileTypography(page.tileWidth, page.tileHeight, metrics.scale);
  const summary = summarizeTiles([...tilesByHost.values()].flat());
  const ageMs = fleet.lastUpdateAt === null ? null : now - fleet.lastUpdateAt;
  const stale = refused || (ageMs !== null && ageMs >= STALE_AFTER_MS);
  const updated = fleet.lastUpdateAt === null ? null : formatUpdateTime(fleet.lastUpdateAt);
  const shift = burnInOffset(Math.floor(now / BURN_IN_STEP_MS));
  const hostsById = new Map(hosts.map((host) => [host.id, host]));

  return (
    <main
      data-testid="display"
      data-stale={stale || undefined}
      data-page={pageIndex}
      data-scale={metrics.scale}
      className="fixed inset-0 cursor-none overflow-hidden bg-black text-white [color-scheme:dark]"
    >
      <div
        className="absolute flex flex-col"
        style={{ inset: metrics.margin, transform: `translate(${shift.x * metrics.scale}px, ${shift.y * metrics.scale}px)` }}
      >
        <div className="relative shrink-0" style={{ height: metrics.stripHeight, marginBottom: metrics.stripGap }}>
          <DisplaySummaryStrip
            summary={summary}
            lastUpdateLabel={updated}
            page={pageIndex}
            pageCount={overview ? 1 : plan.pages.length}
            unknownHosts={unknown}
            openAlerts={openAlerts}
            height={metrics.stripHeight}
            scale={metrics.stripScale}
            simulated={fleet.simulated}
            stateCounts={!overview}
          />
          {stale && (
            <DisplayStaleBanner
              sinceLabel={updated}
              age={ageMs === null ? null : formatAge(ageMs)}
              refused={refused}
              height={metrics.stripHeight}
              scale={metrics.stripScale}
            />
          )}
        </div>

        {overview ? (
          <div className={`flex min-h-0 flex-1 ${stale ? "opacity-45 grayscale" : ""}`}>
            <DisplayOverview
              hosts={hosts}
              tilesByHost={tilesByHost}
              summary={summary}
              width={metrics.areaWidth}
              height={metrics.areaHeight}
              scale={metrics.scale}
            />
          </div>
        ) : (
          <div className={`flex min-h-0 flex-1 items-center justify-center ${stale ? "opacity-45 grayscale" : ""}`}>
            <div className="flex items-start" style={{ gap: metrics.columnGap }}>
              {page.blockColumns.map((column, columnIndex) => (
                <div key={columnIndex} className="flex flex-col" style={{ gap: metrics.blockGap }}>
                  {column.map((block) => {
                    const host = hostsById.get(block.hostId);
                    const tiles = tilesByHost.get(block.hostId) ?? [];
                    if (!host) return null;
                    const sliced = block.count < tiles.length;
                    const shown = tiles.slice(block.start, block.start + block.count);
                    return (
                      <section
                        key={`${block.hostId}:${block.start}`}
                        aria-label={`Host ${host.name}`}
                        data-testid="display-host"
                        className="flex"
                        style={{ gap: metrics.labelGap }}
                      >
                        <DisplayHostLabel
                          host={host}
                          tiles={tiles}
                          slice={sliced && shown.length > 0 ? { first: shown[0].index, last: shown[shown.length - 1].index } : null}
                          width={page.labelWidth}
                          scale={metrics.scale}
                          tileText={typography.text}
                          nowMs={serverNow}
                        />
                        <ul
                          role="list"
                          className="grid"
                          style={{
                            gridTemplateColumns: `repeat(${page.columns}, ${page.tileWidth}px)`,
                            gridAutoRows: `${page.tileHeight}px`,
                            gap: metrics.tileGap,
                          }}
                        >
                          {shown.map((tile) => (
                            <DisplayTile
                              key={tile.uuid}
                              tile={tile}
                              hostName={host.name}
                              width={page.tileWidth}
                              height={page.tileHeight}
                              typography={typography}
                              nowMs={serverNow}
                            />
                          ))}
                        </ul>
                      </section>
                    );
                  })}
                </div>
              ))}
            </div>
          </div>
        )}
      </div>
    </main>
  );
});
