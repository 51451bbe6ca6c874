import { db } from "@/server/core/db";
import { periodicJob, type PeriodicJob } from "@/server/core/jobs";
import { offerWaker, wakeWorker } from "@/server/runtime/runtime";
import { log } from "@/server/core/log";
import { DELIVERY_POLL_MS, RETRY_BACKOFF_MS } from "@/server/notifications/deliveries";
import type { SendMail } from "@/server/notifications/mailer";

const MAX_ATTEMPTS = RETRY_BACKOFF_MS.length + 1;
const MAX_ERROR_CHARS = 500;

export interface MailWorkerOptions {
  send: SendMail;
  now?: () => number;
  pollMs?: number;
  batch?: number;
}

/**
 * Sends due mail (MailDelivery rows), one attempt each, with the webhook
 * deliveries' backoff: a refusal or no answer is retried after
 * RETRY_BACKOFF_MS, then given up as "failed". New mail wakes it at once;
 * it also looks every DELIVERY_POLL_MS for retries and rows an earlier run
 * of the server left. The delivery log (/admin/notifications) shows the rows.
 */
export class MailWorker {
  private readonly now: () => number;
  /** Polls for retries and rows an earlier run left; woken at once when mail is queued (server/core/jobs.ts). */
  private readonly job: PeriodicJob;

  constructor(private readonly options: MailWorkerOptions) {
    this.now = options.now ?? Date.now;
    this.job = periodicJob({ name: "mail deliveries", everyMs: options.pollMs ?? DELIVERY_POLL_MS, run: () => this.runOnce().then(() => undefined) });
  }

  private stopJob: (() => Promise<void>) | null = null;

  start(): void {
    this.stopJob = this.job.start();
  }

  async stop(): Promise<void> {
    await this.stopJob?.();
    this.stopJob = null;
  }

  wake(): void {
    this.job.poke();
  }

  /** One pass over the due mail; answers how many attempts were made. */
  async runOnce(): Promise<number> {
    const due = await db().mailDelivery.findMany({
      where: { status: "pending", nextAttemptAt: { lte: new Date(this.now()) } },
      orderBy: { nextAttemptAt: "asc" },
      take: this.options.batch ?? 20,
      select: { id: true, to: true, subject: true, text: true, html: true, event: true, attempts: true },
    });
    // One at a time: an SMTP server limits connections per client.
    for (const mail of due) await this.attempt(mail);
    return due.length;
  }

  private async attempt(mail: { id: string; to: string; subject: string; text: string; html: string; event: string; attempts: number }): Promise<void> {
    const attempts = mail.attempts + 1;
    let error: string | null = null;
    try {
      await this.options.send({ to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
    } catch (caught) {
      const withCode = caught as Error & { code?: string; responseCode?: number };
      error = [withCode.responseCode, withCode.code, withCode.message].filter(Boolean).join(" ") || String(caught);
    }
    const at = new Date(this.now());
    if (error === null) {
      log.info(`mail ${mail.event} sent (attempt ${attempts})`);
      await db().mailDelivery.update({ where: { id: mail.id }, data: { status: "delivered", attempts, lastError: null, deliveredAt: at } });
      return;
    }
    const giveUp = attempts >= MAX_ATTEMPTS;
    const retryIn = RETRY_BACKOFF_MS[Math.min(attempts - 1, RETRY_BACKOFF_MS.length - 1)];
    log.warn(`mail ${mail.event} failed (${error}, attempt ${attempts}); ${giveUp ? "giving up" : `retrying in ${retryIn / 1000} s`}`);
    await db().mailDelivery.update({
      where: { id: mail.id },
      data: { status: giveUp ? "failed" : "pending", attempts, lastError: error.slice(0, MAX_ERROR_CHARS), nextAttemptAt: new Date(at.getTime() + (giveUp ? 0 : retryIn)) },
    });
  }
}

/** The server's mail worker (leader only, like the webhook deliveries'); none when GPUDESK_SMTP_URL is unset. */
export function startMailWorker(options: MailWorkerOptions): { stop: () => Promise<void> } {
  const worker = new MailWorker(options);
  const withdraw = offerWaker("mail", () => worker.wake());
  worker.start();
  return {
    async stop() {
      withdraw();
      await worker.stop();
    },
  };
}

/** Asks the running mail worker to send what was just queued (nothing when mail is off or this is not the leader). */
export function wakeMail(): void {
  wakeWorker("mail");
}
