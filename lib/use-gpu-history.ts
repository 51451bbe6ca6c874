"use client";

import { useEffect, useMemo, useState } from "react";
import { appendPoints } from "@/lib/live-fleet-state";
import { timeAxis, toChartRows, type GpuChartRow, type TimeAxis } from "@/lib/gpu-series";
import { HISTORY_POINTS, type FleetDelta, type GpuPoint } from "@/lib/live";
import { READINGS_REDRAW_MS, retainLiveFleet, subscribeFleetMessages } from "@/lib/live-fleet-store";
import { deltaPointsOf } from "@/lib/live-points";
import { getLiveSocket } from "@/lib/live-socket";

export type HistoryStatus = "loading" | "ready" | "missing" | "error";

export interface GpuHistorySeries {
  status: HistoryStatus;
  rows: GpuChartRow[];
  axis: TimeAxis;
}

const HISTORY_TIMEOUT_MS = 10_000;

/**
 * The last 15 minutes of one GPU, ready to plot: loaded with `gpu:history`
 * on every (re)connect, then extended from the deltas' points, at most 900.
 */
export function useGpuHistory(uuid: string): GpuHistorySeries {
  const [status, setStatus] = useState<HistoryStatus>("loading");
  const [points, setPoints] = useState<GpuPoint[]>([]);

  useEffect(() => {
    const release = retainLiveFleet();
    const socket = getLiveSocket();
    let current = true;
    // Only the latest request may set state: an answer that timed out during
    // a reconnect must not overwrite the one that came after it.
    let latestRequest = 0;

    const load = async () => {
      const request = ++latestRequest;
      const isLatest = () => current && request === latestRequest;
      try {
        const history = await socket.timeout(HISTORY_TIMEOUT_MS).emitWithAck("gpu:history", uuid);
        if (!isLatest()) return;
        if (history === null) {
          setStatus("missing");
          return;
        }
        // Points that arrived by delta while the answer travelled are kept after it.
        setPoints((held) => appendPoints(appendPoints([], history.points, HISTORY_POINTS), held, HISTORY_POINTS));
        setStatus("ready");
      } catch {
        if (isLatest()) setStatus("error");
      }
    };
    // New points are drawn at most once per READINGS_REDRAW_MS, like the fleet store's readings.
    let pending: GpuPoint[] = [];
    let drawTimer: ReturnType<typeof setTimeout> | null = null;
    let lastDrawAt = 0;
    const draw = () => {
      drawTimer = null;
      lastDrawAt = Date.now();
      const fresh = pending;
      pending = [];
      if (current) setPoints((held) => appendPoints(held, fresh, HISTORY_POINTS));
    };
    const onDelta = (delta: FleetDelta) => {
      const fresh = deltaPointsOf(delta, uuid);
      if (fresh.length === 0) return;
      pending = pending.concat(fresh);
      if (drawTimer) return;
      const wait = READINGS_REDRAW_MS - (Date.now() - lastDrawAt);
      if (wait <= 0) draw();
      else drawTimer = setTimeout(draw, wait);
    };

    socket.on("connect", load);
    const stopDeltas = subscribeFleetMessages((message) => {
      if (message.kind === "delta") onDelta(message.delta);
    });
    if (socket.connected) void load();
    return () => {
      current = false;
      socket.off("connect", load);
      stopDeltas();
      if (drawTimer) clearTimeout(drawTimer);
      release();
    };
  }, [uuid]);

  return useMemo(() => {
    const rows = toChartRows(points);
    const end = rows.length > 0 ? rows[rows.length - 1].t : Date.now();
    return { status, rows, axis: timeAxis(end) };
  }, [points, status]);
}
