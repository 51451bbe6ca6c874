"use client";

import { useCallback, useEffect, useState } from "react";
import { ALERT_KIND_LABELS, type DeliveryView } from "@/lib/domain/alerts";
import { apiRequest } from "@/lib/api-client";
import { formatDuration } from "@/lib/format/duration";
import { useNow } from "@/components/live/use-now";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button-styles";
import * as t from "@/components/ui/table-styles";
import { TimeAgo } from "@/components/ui/time-ago";

const REFRESH_MS = 5_000;

const STATUS_TONE = { pending: "warn", delivered: "free", failed: "danger" } as const;
const EVENT_LABELS: Record<string, string> = { "alert.opened": "opened", "alert.closed": "closed", "webhook.test": "test" };

/** Every attempt series of sending an alert to a webhook, newest first; refreshed while the page is open. */
export function DeliveryLog({ initial, mine, refreshKey = 0 }: { initial: DeliveryView[]; mine: boolean; refreshKey?: number }) {
  const [deliveries, setDeliveries] = useState(initial);

  const reload = useCallback(async () => {
    const result = await apiRequest<{ deliveries: DeliveryView[] }>("GET", `/api/v1/webhook-deliveries?limit=100${mine ? "&mine=1" : ""}`);
    if (result.ok) setDeliveries(result.data.deliveries);
  }, [mine]);

  useEffect(() => {
    const timer = setInterval(() => void reload(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);

  useEffect(() => {
    if (refreshKey === 0) return;
    // The test message is usually out within a second.
    const timer = setTimeout(() => void reload(), 1000);
    return () => clearTimeout(timer);
  }, [refreshKey, reload]);

  return (
    <section aria-labelledby="delivery-log" className="space-y-3">
      <div className="flex items-center justify-between gap-3">
        <h2 id="delivery-log" className="text-base font-semibold">
          Delivery log
        </h2>
        <button type="button" onClick={() => void reload()} className={buttonClass("ghost", "sm")}>
          Refresh
        </button>
      </div>
      {deliveries.length === 0 ? (
        <p className="rounded-xl border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-500 dark:border-slate-700 dark:text-slate-400">
          Nothing sent yet.
        </p>
      ) : (
        <div className={t.tableCard}>
          <table className={`${t.table} min-w-[48rem]`} aria-labelledby="delivery-log">
            <thead>
              <tr className={t.headRow}>
                <th scope="col" className={t.th}>Queued</th>
                <th scope="col" className={t.th}>Webhook</th>
                <th scope="col" className={t.th}>Alert</th>
                <th scope="col" className={t.th}>Status</th>
                <th scope="col" className={`${t.th} text-right`}>Attempts</th>
                <th scope="col" className={t.th}>Last answer</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((delivery) => (
                <tr key={delivery.id} className={t.bodyRow} data-status={delivery.status}>
                  <td className={`${t.td} whitespace-nowrap`}>
                    <TimeAgo iso={delivery.createdAt} />
                  </td>
                  <td className={`${t.td} max-w-64`}>
                    <span className="block truncate font-mono text-xs" title={delivery.webhook.url}>
                      {delivery.webhook.url}
                    </span>
                    <span className="text-xs text-slate-500 dark:text-slate-400">{delivery.webhook.personal ? "personal" : "fleet-wide"} · {delivery.webhook.format}</span>
                  </td>
                  <td className={`${t.td} text-xs`}>
                    {delivery.alertId === "test" ? (
                      "test message"
                    ) : (
                      <a href={`/alerts?state=all&alert=${encodeURIComponent(delivery.alertId)}`} className="text-sky-700 hover:underline dark:text-sky-400">
                        {delivery.alert ? `${ALERT_KIND_LABELS[delivery.alert.kind]} ${EVENT_LABELS[delivery.event] ?? delivery.event}` : (EVENT_LABELS[delivery.event] ?? delivery.event)}
                      </a>
                    )}
                    {delivery.alert?.hostName && (
                      <span className="block text-slate-500 dark:text-slate-400">
                        {delivery.alert.hostName}
                        {delivery.alert.unit !== null && ` · ${delivery.alert.unit}`}
                      </span>
                    )}
                  </td>
                  <td className={t.td}>
                    <Badge tone={STATUS_TONE[delivery.status]}>{delivery.status}</Badge>
                    {delivery.status === "pending" && delivery.attempts > 0 && delivery.nextAttemptAt && (
                      <span className="mt-1 block text-xs text-slate-500 dark:text-slate-400">
                        <RetryIn iso={delivery.nextAttemptAt} />
                      </span>
                    )}
                  </td>
                  <td className={`${t.td} text-right tabular-nums`}>{delivery.attempts}</td>
                  <td className={`${t.td} text-xs`}>
                    {delivery.lastStatusCode !== null && <span className="tabular-nums">HTTP {delivery.lastStatusCode}</span>}
                    {delivery.lastError && <span className="block text-red-700 dark:text-red-300">{delivery.lastError}</span>}
                    {delivery.lastStatusCode === null && !delivery.lastError && <span className="text-slate-400">—</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** "retry in 25 s": when the next attempt is due (empty during server rendering, whose clock is not the viewer's). */
function RetryIn({ iso }: { iso: string }) {
  const now = useNow(1000);
  if (now === 0) return null;
  const wait = Date.parse(iso) - now;
  return <time dateTime={iso}>{wait <= 1000 ? "retrying now" : `retry in ${formatDuration(wait)}`}</time>;
}
