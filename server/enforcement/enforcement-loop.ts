import { randomUUID } from "node:crypto";
import type { GpuReconciliation } from "@/lib/domain/attribution";
import type { EnforcementReport } from "@/lib/domain/enforcement-protocol";
import type { LiveGpu } from "@/lib/live/live";
import type { OpenAlertRef } from "@/server/tick/tick-view";
import { db } from "@/server/core/db";
import { periodicJob, type JobTimers, type PeriodicJob } from "@/server/core/jobs";
import { recordHostAudit } from "@/server/enforcement/enforcement-audit";
import type { EnforcementChannel } from "@/server/enforcement/enforcement-channel";
import { UnrequestedReportError } from "@/server/enforcement/unrequested-report";
import { planTerminations, startedBeforeBooking, type HostEnforcement } from "@/server/enforcement/enforcement-plan";
import { loadEnforcedHosts } from "@/server/enforcement/host-settings";
import type { RegisteredHost } from "@/server/hosts/host-registry";
import { log } from "@/server/core/log";
import { bookingClaimValue } from "@/server/bookings/rules/booking-proof";
import { readBookingCreatedAt } from "@/server/bookings/store/booking-rows";

/** A request is not repeated for the same process within this long (the agent may have refused it). */
const RESEND_AFTER_MS = 60 * 60_000;

export interface EnforcementLoopOptions {
  channel: EnforcementChannel;
  loginOf: (personId: string) => string | null;
  /** How often the hosts' settings are read again (an admin's change also applies at once, see `refresh`). */
  refreshMs?: number;
  loadSettings?: () => Promise<Map<string, HostEnforcement>>;
  /** When a booking was made (default: its row's createdAt); null when unknown. */
  bookedAt?: (bookingId: string) => Promise<Date | null>;
  timers?: JobTimers;
}

/**
 * The server's side of "terminate intruders after a grace period": on each
 * tick, asks the agents of hosts with enforcement on to terminate the
 * processes of conflicts that outlasted the grace period, once each; every
 * request and every report from an agent goes to the audit log.
 */
export class EnforcementLoop {
  private enforced = new Map<string, HostEnforcement>();
  private readonly sent = new Map<string, number>();
  private readonly settings: PeriodicJob;

  constructor(private readonly options: EnforcementLoopOptions) {
    this.settings = periodicJob({ name: "enforcement settings", everyMs: options.refreshMs ?? 5000, timers: options.timers, run: () => this.refresh() });
  }

  /** The settings read, then read again every `refreshMs` (server/core/jobs.ts). */
  async start(): Promise<void> {
    this.settings.start();
    await this.settings.settled();
  }

  stop(): Promise<void> {
    return this.settings.stop();
  }

  async refresh(): Promise<void> {
    try {
      this.enforced = await (this.options.loadSettings ?? loadEnforcedHosts)();
    } catch (error) {
      log.error(`could not read the enforcement settings: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  tick(nowMs: number, openAlerts: Iterable<OpenAlertRef>, reconciliation: Readonly<Record<string, GpuReconciliation>>, gpus: readonly LiveGpu[]): void {
    if (this.enforced.size === 0) return;
    for (const [key, at] of this.sent) if (nowMs - at > RESEND_AFTER_MS) this.sent.delete(key);
    const plan = planTerminations({
      nowMs,
      openAlerts,
      enforced: this.enforced,
      reconciliation,
      gpus: new Map(gpus.map((gpu) => [gpu.uuid, gpu])),
      loginOf: this.options.loginOf,
    });
    for (const target of plan) {
      const key = `${target.hostId}:${target.process.pid}:${target.startedAt ?? ""}`;
      if (this.sent.has(key) || !this.options.channel.capable(target.hostId)) continue;
      this.sent.set(key, nowMs);
      void this.request(target, nowMs)
        .then((sent) => {
          if (!sent) this.sent.delete(key);
        })
        .catch((error: unknown) => {
          this.sent.delete(key);
          log.error(`could not send an enforcement request: ${error instanceof Error ? error.message : String(error)}`);
        });
    }
  }

  /**
   * Records the request, then sends it, then audits it: the record comes
   * first, so that the agent's answer always finds it (an answer about a
   * request that is not on record is refused, see recordEnforcementReport).
   * A process that ran before its GPU was booked is spared (not sent, and
   * not asked about again for an hour). False when nothing could be sent.
   */
  private async request(target: ReturnType<typeof planTerminations>[number], nowMs: number): Promise<boolean> {
    const bookedAt = await (this.options.bookedAt ?? readBookingCreatedAt)(target.reservationId);
    if (startedBeforeBooking(target.startedAt, bookedAt)) {
      await recordHostAudit({
        hostId: target.hostId,
        action: "enforcement.spared",
        at: new Date(nowMs),
        after: {
          pid: target.process.pid,
          login: target.process.login,
          startedAt: target.startedAt,
          gpuUuid: target.gpuUuid,
          reservationId: target.reservationId,
          bookedAt: bookedAt?.toISOString(),
          reason: "it was running before the booking was made over it",
        },
      });
      return true;
    }
    const commandId = randomUUID();
    await db().enforcementCommand.create({ data: { id: commandId, hostId: target.hostId, pid: target.process.pid, createdAt: new Date(nowMs) } });
    const sent = this.options.channel.send(target.hostId, {
      commandId,
      pid: target.process.pid,
      startedAt: target.startedAt,
      gpuUuid: target.gpuUuid,
      alertId: target.alertId,
      reservationId: target.reservationId,
      // The agent compares the process's GPUDESK_RESERVATION as it is, so it is told the whole value, proof included:
      // a process naming the booking without the proof is not protected.
      protect: { reservationId: bookingClaimValue(target.reservationId), logins: target.bookerLogin ? [target.bookerLogin] : [] },
      killAfterSeconds: target.killAfterSeconds,
      reason: `in conflict with booking ${target.reservationId} on ${target.gpuUuid}`,
    });
    if (!sent) {
      await db().enforcementCommand.update({ where: { id: commandId }, data: { closedAt: new Date() } });
      return false;
    }
    await recordHostAudit({
      hostId: target.hostId,
      action: "enforcement.requested",
      at: new Date(nowMs),
      after: {
        commandId,
        pid: target.process.pid,
        login: target.process.login,
        person: target.process.runner,
        evidence: target.process.evidence,
        command: target.command,
        gpuUuid: target.gpuUuid,
        reservationId: target.reservationId,
        bookedById: target.bookedById,
        alertId: target.alertId,
        killAfterSeconds: target.killAfterSeconds,
      },
    });
    return true;
  }
}

/** An agent may answer a request for this long (its SIGKILL wait is at most an hour). */
const ANSWER_WITHIN_MS = 2 * 3600_000;


/**
 * What an agent did about a request: into the audit log, as an entry about
 * its host, dated by this server. Only a report that answers a request this
 * server sent to this host, about the same pid, is taken: once for SIGTERM,
 * once for the end (SIGKILL, exited, gone, refused). Anything else (a rogue
 * or replayed report) is refused and leaves no trace but a log line.
 */
export async function recordEnforcementReport(host: RegisteredHost, report: EnforcementReport, now = new Date()): Promise<void> {
  const open = { id: report.commandId, hostId: host.id, pid: report.pid, closedAt: null, createdAt: { gte: new Date(now.getTime() - ANSWER_WITHIN_MS) } };
  const claimed =
    report.action === "sigterm"
      ? await db().enforcementCommand.updateMany({ where: { ...open, sigtermAt: null }, data: { sigtermAt: now } })
      : await db().enforcementCommand.updateMany({ where: open, data: { closedAt: now } });
  if (claimed.count === 0) {
    log.warn(`refused an enforcement report from ${host.name} that answers no open request (pid ${report.pid}, ${report.action})`);
    throw new UnrequestedReportError("no such request");
  }
  log.info(`enforcement on ${host.name}: pid ${report.pid} ${report.action} (${report.detail})`);
  await recordHostAudit({ hostId: host.id, action: `enforcement.${report.action}`, at: now, after: { ...report, agentAt: report.at, at: now.toISOString() } });
}
