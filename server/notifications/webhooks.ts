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
} from "@/lib/domain/alerts";
import { alertUnitName, toKind, unitNamesOf } from "@/server/alerts/alert-store";
import type { UserPrincipal } from "@/server/access/principal";
import { writeAudit } from "@/server/access/audit-log";
import { countedWrite } from "@/server/core/counted-write";
import { db } from "@/server/core/db";
import { env } from "@/server/core/env";
import { AppError } from "@/server/core/errors";
import { privateTargetAllowList, resolveTarget, WebhookTargetRefused, type Resolver } from "@/server/notifications/webhook-target";
import { personSelect, toPerson } from "@/server/core/people";
import { can } from "@/server/access/permissions";

type Actor = UserPrincipal["user"];
type Tx = Prisma.TransactionClient;

/** Personal webhooks one person may have. */
export const MAX_PERSONAL_WEBHOOKS = 10;
/** Test messages one person may send through their personal webhooks per minute. */
export const MAX_TESTS_PER_MINUTE = 5;
/** Starts the error of a delivery that gpudesk refused to send (its own words, safe to show the owner). */
export const REFUSED_PREFIX = "refused: ";

/** The private addresses that personal webhooks may reach, from GPUDESK_WEBHOOK_PRIVATE_TARGETS. */
export function personalWebhookAllowList(): (address: string) => boolean {
  return privateTargetAllowList(env().GPUDESK_WEBHOOK_PRIVATE_TARGETS);
}

export interface WebhookRules {
  allowPrivate?: (address: string) => boolean;
  resolve?: Resolver;
}

/**
 * Refuses a personal webhook whose host is, or resolves to, an address it
 * may not reach. A name that does not resolve (yet) is accepted: every
 * delivery checks again before it connects.
 */
async function checkPersonalTarget(url: string, rules: WebhookRules): Promise<void> {
  try {
    await resolveTarget(url, rules.allowPrivate ?? personalWebhookAllowList(), rules.resolve);
  } catch (error) {
    if (error instanceof WebhookTargetRefused) throw new AppError("bad_request", `Webhook refused: the URL ${error.message}`, { url: error.message });
  }
}

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

/** `scope` "admin": the fleet-wide webhooks (admins only); "personal": the actor's own. */
export async function listWebhooks(actor: Actor, scope: "admin" | "personal"): Promise<WebhookView[]> {
  if (scope === "admin" && !can.manageFleetWebhooks(actor)) throw new AppError("forbidden", "Only an admin can see the fleet-wide webhooks");
  const rows = await db().webhook.findMany({
    where: { userId: scope === "admin" ? null : actor.id },
    orderBy: { createdAt: "asc" },
    select: webhookSelect,
  });
  return toViews(rows);
}

/** What the audit log keeps of a webhook: its target's host, never the URL (which carries its secret). */
function auditedWebhook(row: WebhookRow): Record<string, unknown> {
  let target = "(invalid URL)";
  try {
    target = new URL(row.url).host;
  } catch {
    // kept as "(invalid URL)"
  }
  return { scope: row.userId === null ? "admin" : "personal", target, format: row.format, kinds: kindsOf(row.kinds), enabled: row.enabled };
}

/** Refuses a personal webhook past MAX_PERSONAL_WEBHOOKS; inside countedWrite, where the count holds. */
async function refuseOverWebhookLimit(client: Tx, ownerId: string): Promise<void> {
  const count = await client.webhook.count({ where: { userId: ownerId } });
  if (count >= MAX_PERSONAL_WEBHOOKS) throw new AppError("conflict", `You have ${MAX_PERSONAL_WEBHOOKS} webhooks, the most one person may have: remove one first`);
}

export async function createWebhook(actor: Actor, input: unknown, rules: WebhookRules = {}): Promise<WebhookView> {
  const data = webhookInputSchema.parse(input);
  if (data.scope === "admin" && !can.manageFleetWebhooks(actor)) throw new AppError("forbidden", "Only an admin can add a fleet-wide webhook");
  const personal = data.scope === "personal";
  if (personal) {
    // Early, so that a person at the limit is told so before their target is resolved; counted again where it holds, below.
    await refuseOverWebhookLimit(db(), actor.id);
    await checkPersonalTarget(data.url, rules);
  }
  const write = async (tx: Tx) => {
    if (personal) await refuseOverWebhookLimit(tx, actor.id);
    const created = await tx.webhook.create({
      data: { url: data.url, format: data.format, kinds: JSON.stringify(data.kinds), userId: personal ? actor.id : null },
      select: webhookSelect,
    });
    await writeAudit(tx, { actorId: actor.id, action: "webhook.create", entityType: "webhook", entityId: created.id, after: auditedWebhook(created) });
    return created;
  };
  const row = personal ? await countedWrite(actor.id, write) : await db().$transaction(write);
  const [view] = await toViews([row]);
  return view;
}

async function findManageable(actor: Actor, id: string): Promise<WebhookRow> {
  const row = await db().webhook.findUnique({ where: { id }, select: webhookSelect });
  // Someone else's webhook answers like a missing one: its existence is not theirs to learn.
  if (!row || !can.manageWebhook(actor, row)) throw new AppError("not_found", "No such webhook");
  return row;
}

export async function updateWebhook(actor: Actor, id: string, input: unknown, rules: WebhookRules = {}): Promise<WebhookView> {
  const patch = webhookPatchSchema.parse(input);
  const current = await findManageable(actor, id);
  if (patch.url !== undefined && current.userId !== null) await checkPersonalTarget(patch.url, rules);
  const row = await db().$transaction(async (tx) => {
    const updated = await tx.webhook.update({
      where: { id },
      data: {
        ...(patch.url !== undefined ? { url: patch.url } : {}),
        ...(patch.format !== undefined ? { format: patch.format } : {}),
        ...(patch.kinds !== undefined ? { kinds: JSON.stringify(patch.kinds) } : {}),
        ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
      },
      select: webhookSelect,
    });
    await writeAudit(tx, { actorId: actor.id, action: "webhook.update", entityType: "webhook", entityId: id, before: auditedWebhook(current), after: auditedWebhook(updated) });
    return updated;
  });
  const [view] = await toViews([row]);
  return view;
}

export async function deleteWebhook(actor: Actor, id: string): Promise<void> {
  const current = await findManageable(actor, id);
  await db().$transaction(async (tx) => {
    await tx.webhook.delete({ where: { id } });
    await writeAudit(tx, { actorId: actor.id, action: "webhook.delete", entityType: "webhook", entityId: id, before: auditedWebhook(current) });
  });
}

/** A webhook the actor may send a test through, and whose test messages count (its owner's; null for a fleet-wide one). */
export interface TestTarget {
  id: string;
  format: WebhookFormat;
  ownerId: string | null;
}

/** Checks that the actor may send a test through this webhook; returns it (enqueueTestDelivery counts and queues). */
export async function webhookForTest(actor: Actor, id: string): Promise<TestTarget> {
  const row = await findManageable(actor, id);
  return { id: row.id, format: toFormat(row.format), ownerId: row.userId };
}

/** Refuses a test message past MAX_TESTS_PER_MINUTE of the owner's personal webhooks; inside countedWrite, where the count holds. */
export async function refuseOverTestLimit(tx: Tx, ownerId: string, now: Date): Promise<void> {
  const recent = await tx.webhookDelivery.count({
    where: { event: "webhook.test", createdAt: { gt: new Date(now.getTime() - 60_000) }, webhook: { userId: ownerId } },
  });
  if (recent >= MAX_TESTS_PER_MINUTE) throw new AppError("rate_limited", `At most ${MAX_TESTS_PER_MINUTE} test messages a minute: try again shortly`);
}

/** The delivery log, newest first: every webhook for admins (unless `mine`), a person's own webhooks otherwise. */
export async function listDeliveries(actor: Actor, query: { status?: DeliveryStatus; limit: number; mine?: boolean }): Promise<DeliveryView[]> {
  const everyone = can.seeAllDeliveries(actor) && !query.mine;
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
  const alerts = await db().alert.findMany({ where: { id: { in: alertIds } }, select: { id: true, kind: true, gpuUuid: true, gpuIndex: true, hostId: true } });
  const units = await unitNamesOf(alerts.flatMap((alert) => (alert.gpuUuid ? [alert.gpuUuid] : [])));
  const hostIds = [...new Set(alerts.flatMap((alert) => (alert.hostId ? [alert.hostId] : [])))];
  const hosts = new Map((await db().host.findMany({ where: { id: { in: hostIds } }, select: { id: true, name: true } })).map((host) => [host.id, host.name]));
  const alertById = new Map(
    alerts.map((alert) => [alert.id, { kind: toKind(alert.kind), hostName: alert.hostId ? (hosts.get(alert.hostId) ?? null) : null, gpuIndex: alert.gpuIndex, unit: alertUnitName(units, alert) }]),
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
    ...deliveryOutcome(actor, row),
    createdAt: row.createdAt.toISOString(),
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
  }));
}

/**
 * What went wrong with a delivery, for the one asking. Admins see the remote
 * answer (status code, error); a member sees whether it went through and
 * gpudesk's own refusals, never what the far side answered or how: the
 * delivery log must not become a way to probe what the server can reach.
 */
function deliveryOutcome(actor: Actor, row: { lastError: string | null; lastStatusCode: number | null }): { lastError: string | null; lastStatusCode: number | null } {
  if (can.seeDeliveryErrors(actor)) return { lastError: row.lastError, lastStatusCode: row.lastStatusCode };
  if (row.lastError === null) return { lastError: null, lastStatusCode: null };
  return { lastError: row.lastError.startsWith(REFUSED_PREFIX) ? row.lastError : "not delivered", lastStatusCode: null };
}
