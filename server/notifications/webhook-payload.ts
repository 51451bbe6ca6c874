import { ALERT_KIND_LABELS, type AlertUpdate, type AlertView, type WebhookFormat } from "@/lib/domain/alerts";

export type DeliveryEvent = "alert.opened" | "alert.closed" | "webhook.test";

export function deliveryEventOf(event: AlertUpdate["event"]): DeliveryEvent | null {
  if (event === "opened") return "alert.opened";
  if (event === "closed") return "alert.closed";
  return null;
}

/**
 * Text for Slack's mrkdwn (Mattermost and Rocket.Chat read it the same way):
 * `<…>` is a mention or a link there, so `<!channel>` in a host name, a
 * purpose or a process name would ping a whole channel. Slack asks for
 * exactly these three to be escaped.
 */
export function escapeSlackText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function where(alert: AlertView): string {
  if (alert.gpu && alert.host) return `${alert.host.name} ${alert.gpu.unit ?? `GPU ${alert.gpu.index ?? "?"}`}`;
  return alert.host?.name ?? "gpudesk";
}

/** A page of gpudesk's at the server's public address. */
function addressOf(publicUrl: string, path: string): string {
  return `${publicUrl.replace(/\/$/, "")}${path}`;
}

function linkOf(alert: AlertView, publicUrl: string | undefined): string | null {
  return publicUrl ? addressOf(publicUrl, `/alerts?alert=${encodeURIComponent(alert.id)}`) : null;
}

/**
 * The body one webhook receives for one event. `json`: the event and the
 * alert as the API shows it. `slack`: a Slack-compatible `{ text }` message
 * (Slack, Mattermost and Rocket.Chat incoming webhooks read it).
 */
export function buildPayload(format: WebhookFormat, event: DeliveryEvent, alert: AlertView, publicUrl?: string): string {
  const link = linkOf(alert, publicUrl);
  if (format === "json") {
    const bookingLinks = publicUrl ? (alert.bookings ?? []).map((booking) => addressOf(publicUrl, booking.path)) : [];
    return JSON.stringify({ event, alert, ...(link ? { link } : {}), ...(bookingLinks.length > 0 ? { bookingLinks } : {}) });
  }

  const label = ALERT_KIND_LABELS[alert.kind];
  const verb = event === "alert.closed" ? "cleared" : event === "webhook.test" ? "test" : "opened";
  const icon = event === "alert.closed" ? ":white_check_mark:" : event === "webhook.test" ? ":information_source:" : ":rotating_light:";
  // Host names come from agents and messages name people, processes and purposes: escaped.
  // Each booking it is about, linked to its card ("2 × 8 H100 on h100-03 and h100-04").
  const bookings = (alert.bookings ?? []).map((booking) => (publicUrl ? ` <${addressOf(publicUrl, booking.path)}|booking ${escapeSlackText(booking.name)}>` : ` (booking ${escapeSlackText(booking.name)})`)).join("");
  const text = `${icon} *${label} ${verb}* on ${escapeSlackText(where(alert))}: ${escapeSlackText(alert.message)}${link ? ` <${link}|details>` : ""}${bookings}`;
  return JSON.stringify({ text });
}

/** What a "send a test" delivery carries: an alert-shaped example that names the webhook's purpose. */
export function testAlert(nowIso: string): AlertView {
  return {
    id: "test",
    kind: "conflict",
    subjectKey: "test",
    host: { id: "test", name: "example-host" },
    gpu: { uuid: "GPU-00000000-0000-0000-0000-000000000000", index: 0 },
    reservationId: null,
    bookedById: null,
    people: [],
    message: "This is a test message from gpudesk: the webhook works.",
    evidence: {},
    openedAt: nowIso,
    closedAt: null,
    acknowledgedAt: null,
    acknowledgedBy: null,
  };
}
