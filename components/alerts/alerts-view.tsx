"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import {
  ALERT_KINDS,
  ALERT_KIND_LABELS,
  RECENT_ALERT_DAYS,
  alertQueryOf,
  canAcknowledgeAlert,
  type AlertFilters,
  type AlertKind,
  type AlertPage,
  type AlertView,
} from "@/lib/domain/alerts";
import { apiRequest } from "@/lib/api-client";
import { retainLiveFleet } from "@/components/live/live-fleet-store";
import { getLiveSocket } from "@/components/live/live-socket";
import { useCurrentUser } from "@/components/auth/current-user";
import { AlertItem } from "@/components/alerts/alert-item";
import { FormAlert, inputClass } from "@/components/forms/field";

function alertsUrl(filters: AlertFilters, nowMs: number): string {
  return `/api/v1/alerts?${new URLSearchParams(alertQueryOf(filters, nowMs))}`;
}

interface AlertsViewProps {
  initial: AlertView[];
  initialFilters: AlertFilters;
  hosts: { id: string; name: string }[];
  /** An alert to bring into view (the link in a webhook message). */
  focusId: string | null;
}

/**
 * Open and recent alerts, filtered, acknowledged in place, and kept live:
 * every `alerts:*` event on /live reloads the list (alerts change rarely;
 * the list with its filters is the truth).
 */
export function AlertsView({ initial, initialFilters, hosts, focusId }: AlertsViewProps) {
  const user = useCurrentUser();
  const [alerts, setAlerts] = useState(initial);
  const [filters, setFilters] = useState(initialFilters);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState<string | null>(null);
  const filtersRef = useRef(filters);
  filtersRef.current = filters;

  const reload = useCallback(async () => {
    const result = await apiRequest<AlertPage>("GET", alertsUrl(filtersRef.current, Date.now()));
    if (result.ok) {
      setAlerts(result.data.alerts);
      setError(null);
    } else {
      setError(result.error.message);
    }
  }, []);

  // The live socket brings word of changes; reload when one arrives.
  useEffect(() => {
    const release = retainLiveFleet();
    const socket = getLiveSocket();
    let debounce: ReturnType<typeof setTimeout> | undefined;
    const soon = () => {
      clearTimeout(debounce);
      debounce = setTimeout(() => void reload(), 200);
    };
    socket.on("alerts:update", soon);
    socket.on("alerts:snapshot", soon);
    return () => {
      clearTimeout(debounce);
      socket.off("alerts:update", soon);
      socket.off("alerts:snapshot", soon);
      release();
    };
  }, [reload]);

  useEffect(() => {
    if (!focusId) return;
    document.getElementById(`alert-${focusId}`)?.scrollIntoView({ block: "center" });
  }, [focusId]);

  function change(next: Partial<AlertFilters>) {
    const merged = { ...filters, ...next };
    setFilters(merged);
    filtersRef.current = merged;
    const url = new URL(window.location.href);
    for (const [key, value] of Object.entries(merged)) {
      if (value === "" || value === false || (key === "state" && value === "open")) url.searchParams.delete(key);
      else url.searchParams.set(key, String(value === true ? "1" : value));
    }
    window.history.replaceState(window.history.state, "", url);
    void reload();
  }

  async function acknowledge(id: string) {
    setPending(id);
    const result = await apiRequest<AlertView>("POST", `/api/v1/alerts/${encodeURIComponent(id)}/acknowledge`);
    setPending(null);
    if (!result.ok) return setError(result.error.message);
    setAlerts((current) => current.map((alert) => (alert.id === id ? result.data : alert)));
  }

  const mayAcknowledge = (alert: AlertView) =>
    canAcknowledgeAlert({ id: user.id, acknowledgesEveryAlert: user.can.acknowledgeEveryAlert }, { ...alert, involvedIds: alert.people.map((person) => person.id) });
  const open = useMemo(() => alerts.filter((alert) => alert.closedAt === null), [alerts]);
  const closed = useMemo(() => alerts.filter((alert) => alert.closedAt !== null), [alerts]);

  return (
    <div className="space-y-6">
      <form aria-label="Filter alerts" className="flex flex-wrap items-end gap-3" onSubmit={(event) => event.preventDefault()}>
        <fieldset className="flex rounded-md border border-slate-300 p-0.5 dark:border-slate-700">
          <legend className="sr-only">Which alerts</legend>
          {(["open", "all"] as const).map((state) => (
            <label
              key={state}
              className={`cursor-pointer rounded px-3 py-1 text-sm font-medium has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-sky-500 ${
                filters.state === state ? "bg-slate-900 text-white dark:bg-slate-100 dark:text-slate-900" : "text-slate-700 dark:text-slate-300"
              }`}
            >
              <input type="radio" name="state" value={state} checked={filters.state === state} onChange={() => change({ state })} className="sr-only" />
              {state === "open" ? "Open" : `Last ${RECENT_ALERT_DAYS} days`}
            </label>
          ))}
        </fieldset>
        <label className="text-sm">
          <span className="mb-1 block font-medium">Kind</span>
          <select value={filters.kind} onChange={(event) => change({ kind: event.target.value as AlertKind | "" })} className={`${inputClass} w-48`}>
            <option value="">All kinds</option>
            {ALERT_KINDS.map((kind) => (
              <option key={kind} value={kind}>
                {ALERT_KIND_LABELS[kind]}
              </option>
            ))}
          </select>
        </label>
        <label className="text-sm">
          <span className="mb-1 block font-medium">Host</span>
          <select value={filters.hostId} onChange={(event) => change({ hostId: event.target.value })} className={`${inputClass} w-48`}>
            <option value="">All hosts</option>
            {hosts.map((host) => (
              <option key={host.id} value={host.id}>
                {host.name}
              </option>
            ))}
          </select>
        </label>
        {user.can.seeAllAlerts && (
          <label className="flex items-center gap-2 pb-2 text-sm">
            <input type="checkbox" checked={filters.mine} onChange={(event) => change({ mine: event.target.checked })} className="size-4" />
            Only alerts about me
          </label>
        )}
      </form>

      {error && <FormAlert>{error}</FormAlert>}

      <section aria-labelledby="open-alerts" className="space-y-3">
        <h2 id="open-alerts" className="text-base font-semibold">
          Open <span className="text-slate-500 tabular-nums dark:text-slate-400">({open.length})</span>
        </h2>
        {open.length === 0 ? (
          <p className="rounded-xl border border-dashed border-slate-300 px-4 py-8 text-center text-sm text-slate-500 dark:border-slate-700 dark:text-slate-400">
            {user.can.seeAllAlerts ? "Nothing needs attention right now." : "Nothing about your GPUs needs attention right now."}
          </p>
        ) : (
          <ul role="list" className="space-y-3">
            {open.map((alert) => (
              <li key={alert.id}>
                <AlertItem
                  alert={alert}
                  canAcknowledge={mayAcknowledge(alert)}
                  highlighted={alert.id === focusId}
                  acknowledging={pending === alert.id}
                  onAcknowledge={acknowledge}
                />
              </li>
            ))}
          </ul>
        )}
      </section>

      {filters.state === "all" && (
        <section aria-labelledby="closed-alerts" className="space-y-3">
          <h2 id="closed-alerts" className="text-base font-semibold">
            Closed <span className="text-slate-500 tabular-nums dark:text-slate-400">({closed.length})</span>
          </h2>
          {closed.length === 0 ? (
            <p className="text-sm text-slate-500 dark:text-slate-400">No alert closed in the last {RECENT_ALERT_DAYS} days.</p>
          ) : (
            <ul role="list" className="space-y-3">
              {closed.map((alert) => (
                <li key={alert.id}>
                  <AlertItem alert={alert} canAcknowledge={false} highlighted={alert.id === focusId} acknowledging={false} onAcknowledge={acknowledge} />
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </div>
  );
}
