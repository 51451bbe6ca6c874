import type { Prisma } from "@prisma/client";
import {
  ALERT_KINDS,
  webhookInputSchema,
  webhookPatchSchema,
  type AlertKind,
  type DeliveryStatus,
  type DeliveryView,
  type WebhookFormat,
  type WebhookView,
} from "@/lib/alerts";
import { toKind } from "@/server/alerts/alert-store";
import type { UserPrincipal } from "@/server/auth/principal";
import { db } from "@/server/db";
import { AppError } from "@/server/errors";
import { personSelect, toPerson } from "@/server/reservations/people";

type Actor = UserPrincipal["user"];

const webhookSelect = {
  id: true,
  url: true,
  format: true,
  kinds: true,
  userId: true,
  enabled: true,
  createdAt: true,
} satisfies Prisma.WebhookSelect;

type WebhookRow = Prisma.WebhookGetPayload<{ select: typeof webhookSelect }>;

export function kindsOf(text: string): AlertKind[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((kind): kind is AlertKind => (ALERT_KINDS as readonly unknown[]).includes(kind)) : [];
  } catch {
    return [];
  }
}

export function toFormat(format: string): WebhookFormat {
  return format === "slack" ? "slack" : "json";
}

async function toViews(rows: WebhookRow[]): Promise<WebhookView[]> {
  const ownerIds = [...new Set(rows.flatMap((row) => (row.userId ? [row.userId] : [])))];
  const owners = ownerIds.length === 0 ? [] : await db().user.findMany({ where: { id: { in: ownerIds } }, select: personSelect });
  const byId = new Map(owners.map((owner) => [owner.id, toPerson(owner)]));
  return rows.map((row) => ({
    id: row.id,
    url: row.url,
    format: toFormat(row.format),
    kinds: kindsOf(row.kinds),
    owner: row.userId ? (byId.get(row.userId) ?? null) : null,
    enabled: row.enabled,
    createdAt: row.createdAt.toISOString(),
  }));
}

/** Admins manage the fleet-wide webhooks; everyone manages their own personal ones. */
export function canManageWebhook(actor: Actor, webhook: { userId: string | null }): boolean {
  return webhook.userId === null ? actor.role === "admin" : webhook.userId === actor.id;
}

/** `scope` "admin": the fleet-wide webhooks (admins only); "personal": the actor's own. */
export async function listWebhooks(actor: Actor, scope: "admin" | "personal"): Promise<WebhookView[]> {
  if (scope === "admin" && actor.role !== "admin") throw new AppError("forbidden", "Only an admin can see the fleet-wide webhooks");
  const rows = await db().webhook.findMany({
    where: { userId: scope === "admin" ? null : actor.id },
    orderBy: { createdAt: "asc" },
    select: webhookSelect,
  });
  return toViews(rows);
}

export async function createWebhook(actor: Actor, input: unknown): Promise<WebhookView> {
  const data = webhookInputSchema.parse(input);
  if (data.scope === "admin" && actor.role !== "admin") throw new AppError("forbidden", "Only an admin can add a fleet-wide webhook");
  const row = await db().webhook.create({
    data: { url: data.url, format: data.format, kinds: JSON.stringify(data.kinds), userId: data.scope === "admin" ? null : actor.id },
    select: webhookSelect,
  });
  const [view] = await toViews([row]);
  return view;
}

async function findManageable(actor: Actor, id: string): Promise<WebhookRow> {
  const row = await db().webhook.findUnique({ where: { id }, select: webhookSelect });
  // Someone else's webhook answers like a missing one: its existence is not theirs to learn.
  if (!row || !canManageWebhook(actor, row)) throw new AppError("not_found", "No such webhook");
  return row;
}

export async function updateWebhook(actor: Actor, id: string, input: unknown): Promise<WebhookView> {
  const patch = webhookPatchSchema.parse(input);
  await findManageable(actor, id);
  const row = await db().webhook.update({
    where: { id },
    data: {
      ...(patch.url !== undefined ? { url: patch.url } : {}),
      ...(patch.format !== undefined ? { format: patch.format } : {}),
      ...(patch.kinds !== undefined ? { kinds: JSON.stringify(patch.kinds) } : {}),
      ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
    },
    select: webhookSelect,
  });
  const [view] = await toViews([row]);
  return view;
}

export async function deleteWebhook(actor: Actor, id: string): Promise<void> {
  await findManageable(actor, id);
  await db().webhook.delete({ where: { id } });
}

/** Checks that the actor may send a test through this webhook; returns it. */
export async function webhookForTest(actor: Actor, id: string): Promise<{ id: string; format: WebhookFormat }> {
  const row = await findManageable(actor, id);
  return { id: row.id, format: toFormat(row.format) };
}

/** The delivery log, newest first: every webhook for admins (unless `mine`), a person's own webhooks otherwise. */
export async function listDeliveries(actor: Actor, query: { status?: DeliveryStatus; limit: number; mine?: boolean }): Promise<DeliveryView[]> {
  const everyone = actor.role === "admin" && !query.mine;
  const rows = await db().webhookDelivery.findMany({
    where: { status: query.status, ...(everyone ? {} : { webhook: { userId: actor.id } }) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit,
    select: {
      id: true,
      alertId: true,
      event: true,
      status: true,
      attempts: true,
      nextAttemptAt: true,
      lastError: true,
      lastStatusCode: true,
      createdAt: true,
      deliveredAt: true,
      webhook: { select: { id: true, url: true, format: true, userId: true } },
    },
  });
  const alertIds = [...new Set(rows.map((row) => row.alertId))];
  const alerts = await db().alert.findMany({ where: { id: { in: alertIds } }, select: { id: true, kind: true, gpuIndex: true, hostId: true } });
  const hostIds = [...new Set(alerts.flatMap((alert) => (alert.hostId ? [alert.hostId] : [])))];
  const hosts = new Map((await db().host.findMany({ where: { id: { in: hostIds } }, select: { id: true, name: true } })).map((host) => [host.id, host.name]));
  const alertById = new Map(
    alerts.map((alert) => [alert.id, { kind: toKind(alert.kind), hostName: alert.hostId ? (hosts.get(alert.hostId) ?? null) : null, gpuIndex: alert.gpuIndex }]),
  );
  return rows.map((row) => ({
    id: row.id,
    webhook: { id: row.webhook.id, url: row.webhook.url, format: toFormat(row.webhook.format), personal: row.webhook.userId !== null },
    alertId: row.alertId,
    alert: alertById.get(row.alertId) ?? null,
    event: row.event,
    status: (row.status === "delivered" || row.status === "failed" ? row.status : "pending") as DeliveryStatus,
    attempts: row.attempts,
    nextAttemptAt: row.status === "pending" ? row.nextAttemptAt.toISOString() : null,
    lastError: row.lastError,
    lastStatusCode: row.lastStatusCode,
    createdAt: row.createdAt.toISOString(),
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
  }));
}
