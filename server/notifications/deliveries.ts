import type { AlertUpdate, AlertView } from "@/lib/domain/alerts";
import type { Prisma } from "@prisma/client";
import { countedWrite } from "@/server/core/counted-write";
import { db } from "@/server/core/db";
import { readBookingOwner } from "@/server/bookings/store/booking-parts";
import { periodicJob, type PeriodicJob } from "@/server/core/jobs";
import { log } from "@/server/core/log";
import { buildPayload, deliveryEventOf, testAlert, type DeliveryEvent } from "@/server/notifications/webhook-payload";
import { REFUSED_PREFIX, kindsOf, personalWebhookAllowList, refuseOverTestLimit, toFormat, type TestTarget } from "@/server/notifications/webhooks";
import { postToTarget, resolveTarget, WebhookTargetRefused, type Resolver } from "@/server/notifications/webhook-target";

/** Waits before the 2nd, 3rd, … attempt; after the last one the delivery is given up. */
export const RETRY_BACKOFF_MS = [10_000, 30_000, 2 * 60_000, 10 * 60_000, 30 * 60_000, 60 * 60_000] as const;
const MAX_ATTEMPTS = RETRY_BACKOFF_MS.length + 1;
/**
 * The worker's look for due deliveries when nothing woke it. Not every 2 s:
 * an idle server would query the database for nothing 30 times a minute.
 */
export const DELIVERY_POLL_MS = 30_000;

function unrefTimer(callback: () => void, delayMs: number): { cancel(): void } {
  const timer = setTimeout(callback, delayMs);
  timer.unref?.();
  return { cancel: () => clearTimeout(timer) };
}
const MAX_ERROR_CHARS = 500;

/**
 * The people whose personal webhooks hear about an alert: the booker of
 * the booking it concerns (for a silent host, the bookers of its bookings).
 */
async function bookersOf(alert: AlertView): Promise<string[]> {
  if (alert.reservationId) {
    const booking = await readBookingOwner(db(), alert.reservationId);
    return booking ? [booking.userId] : [];
  }
  if (alert.kind === "host_offline") return alert.people.map((person) => person.id);
  return [];
}

/**
 * Queues one delivery per webhook that wants this change: admin webhooks
 * whose kinds include the alert's (none listed: all), and the personal
 * webhooks of the bookers concerned. Returns how many were queued.
 */
export async function enqueueAlertDeliveries(change: AlertUpdate, options: { publicUrl?: string; now?: Date } = {}): Promise<number> {
  const event = deliveryEventOf(change.event);
  if (!event) return 0;
  const bookers = await bookersOf(change.alert);
  const webhooks = await db().webhook.findMany({
    where: { enabled: true, OR: [{ userId: null }, ...(bookers.length > 0 ? [{ userId: { in: bookers } }] : [])] },
    select: { id: true, format: true, kinds: true },
  });
  const wanted = webhooks.filter((webhook) => {
    const kinds = kindsOf(webhook.kinds);
    return kinds.length === 0 || kinds.includes(change.alert.kind);
  });
  if (wanted.length === 0) return 0;
  const now = options.now ?? new Date();
  await db().webhookDelivery.createMany({
    data: wanted.map((webhook) => ({
      webhookId: webhook.id,
      alertId: change.alert.id,
      event,
      payload: buildPayload(toFormat(webhook.format), event, change.alert, options.publicUrl),
      nextAttemptAt: now,
      createdAt: now,
    })),
  });
  return wanted.length;
}

/**
 * Queues a test message to one webhook (from webhookForTest). A personal
 * webhook's test counts against its owner's MAX_TESTS_PER_MINUTE, counted
 * and written in one transaction (countedWrite), so parallel tests cannot
 * pass the limit together.
 */
export async function enqueueTestDelivery(webhook: TestTarget, now = new Date()): Promise<string> {
  const event: DeliveryEvent = "webhook.test";
  const write = async (tx: Prisma.TransactionClient) => {
    if (webhook.ownerId !== null) await refuseOverTestLimit(tx, webhook.ownerId, now);
    return tx.webhookDelivery.create({
      data: { webhookId: webhook.id, alertId: "test", event, payload: buildPayload(webhook.format, event, testAlert(now.toISOString())), nextAttemptAt: now, createdAt: now },
      select: { id: true },
    });
  };
  const row = webhook.ownerId !== null ? await countedWrite(webhook.ownerId, write) : await write(db());
  return row.id;
}

export interface DeliveryWorkerOptions {
  now?: () => number;
  /** Private addresses personal webhooks may reach; default: GPUDESK_WEBHOOK_PRIVATE_TARGETS. */
  allowPrivate?: (address: string) => boolean;
  resolve?: Resolver;
  /**
   * How often due deliveries are looked for even when nothing woke the
   * worker: new deliveries wake it at once, and a retry at its due time;
   * this finds rows an earlier run of the server left. Default 30 s.
   */
  pollMs?: number;
  /** Sets a one-shot timer (tests); default setTimeout, not keeping the process alive. */
  setTimer?: (callback: () => void, delayMs: number) => { cancel(): void };
  timeoutMs?: number;
  batch?: number;
}

/**
 * Sends due deliveries, one attempt each, and records the outcome: a 2xx
 * answer delivers; anything else (refusal, timeout, no answer) is retried
 * after RETRY_BACKOFF_MS, then given up as "failed". Each attempt is logged
 * and its error and status code kept on the row for /admin/notifications.
 */
export class DeliveryWorker {
  private readonly now: () => number;
  private readonly allowPrivate: (address: string) => boolean;
  /** Polls for retries and rows an earlier run left; woken at once when a delivery is queued (server/core/jobs.ts). */
  private readonly job: PeriodicJob;
  private stopJob: (() => Promise<void>) | null = null;
  /** The wake set for the earliest retry this worker scheduled, and when it fires. */
  private retry: { at: number; cancel(): void } | null = null;

  constructor(private readonly options: DeliveryWorkerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.allowPrivate = options.allowPrivate ?? personalWebhookAllowList();
    this.job = periodicJob({ name: "webhook deliveries", everyMs: options.pollMs ?? DELIVERY_POLL_MS, run: () => this.runOnce().then(() => undefined) });
  }

  start(): void {
    this.stopJob = this.job.start();
  }

  async stop(): Promise<void> {
    const stop = this.stopJob;
    this.stopJob = null;
    this.retry?.cancel();
    this.retry = null;
    await stop?.();
  }

  /** Wakes the worker at `at` (a retry's due time), unless an earlier wake is already set; only while started. */
  private wakeAt(at: number): void {
    if (this.stopJob === null || (this.retry !== null && this.retry.at <= at)) return;
    this.retry?.cancel();
    const setTimer = this.options.setTimer ?? unrefTimer;
    const { cancel } = setTimer(() => {
      this.retry = null;
      this.wake();
    }, Math.max(0, at - this.now()));
    this.retry = { at, cancel };
  }

  /** Looks for due deliveries now (a second call during a run causes one more run). */
  wake(): void {
    this.job.poke();
  }

  /** One pass over the due deliveries; returns how many attempts were made. */
  async runOnce(): Promise<number> {
    const now = new Date(this.now());
    const due = await db().webhookDelivery.findMany({
      where: { status: "pending", nextAttemptAt: { lte: now } },
      orderBy: { nextAttemptAt: "asc" },
      take: this.options.batch ?? 20,
      select: { id: true, event: true, payload: true, attempts: true, webhook: { select: { url: true, enabled: true, userId: true } } },
    });
    await Promise.all(due.map((delivery) => this.attempt(delivery)));
    return due.length;
  }

  private async attempt(delivery: {
    id: string;
    event: string;
    payload: string;
    attempts: number;
    webhook: { url: string; enabled: boolean; userId: string | null };
  }): Promise<void> {
    const attempts = delivery.attempts + 1;
    const target = safeTarget(delivery.webhook.url);
    if (!delivery.webhook.enabled) {
      await db().webhookDelivery.update({ where: { id: delivery.id }, data: { status: "failed", lastError: "webhook disabled" } });
      return;
    }
    let statusCode: number | null = null;
    let error: string | null = null;
    // Fleet-wide webhooks are set by admins and may call any address; personal ones are
    // checked again at every attempt, after resolving the name, and sent to the checked address.
    const allowPrivate = delivery.webhook.userId === null ? () => true : this.allowPrivate;
    try {
      const resolved = await resolveTarget(delivery.webhook.url, allowPrivate, this.options.resolve);
      statusCode = await postToTarget(resolved, delivery.payload, this.options.timeoutMs ?? 10_000);
      if (statusCode < 200 || statusCode > 299) error = `HTTP ${statusCode}`;
    } catch (caught) {
      error =
        caught instanceof WebhookTargetRefused
          ? `${REFUSED_PREFIX}the URL ${caught.message}`
          : caught instanceof Error
            ? caught.name === "TimeoutError" || caught.name === "AbortError"
              ? "timed out"
              : causeOf(caught)
            : String(caught);
    }

    const at = new Date(this.now());
    if (error === null) {
      log.info(`webhook ${delivery.event} delivered to ${target} (HTTP ${statusCode}, attempt ${attempts})`);
      await db().webhookDelivery.update({
        where: { id: delivery.id },
        data: { status: "delivered", attempts, lastStatusCode: statusCode, lastError: null, deliveredAt: at },
      });
      return;
    }
    // A refused target stays refused: no retries.
    const giveUp = attempts >= MAX_ATTEMPTS || error.startsWith(REFUSED_PREFIX);
    const retryIn = RETRY_BACKOFF_MS[Math.min(attempts - 1, RETRY_BACKOFF_MS.length - 1)];
    log.warn(`webhook ${delivery.event} to ${target} failed (${error}, attempt ${attempts}); ${giveUp ? "giving up" : `retrying in ${retryIn / 1000} s`}`);
    await db().webhookDelivery.update({
      where: { id: delivery.id },
      data: {
        status: giveUp ? "failed" : "pending",
        attempts,
        lastStatusCode: statusCode,
        lastError: error.slice(0, MAX_ERROR_CHARS),
        nextAttemptAt: new Date(at.getTime() + (giveUp ? 0 : retryIn)),
      },
    });
    if (!giveUp) this.wakeAt(at.getTime() + retryIn);
  }
}

/** Scheme and host only: webhook URLs carry their secret in the path or the query. */
function safeTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return "(invalid URL)";
  }
}

/** The system error's code (ECONNREFUSED, ENOTFOUND) where there is one. */
function causeOf(error: Error): string {
  const withCode = error as Error & { code?: string; cause?: { code?: string; message?: string } };
  return withCode.code ?? withCode.cause?.code ?? withCode.cause?.message ?? error.message;
}
