import { randomUUID } from "node:crypto";
import type { GpuReconciliation } from "@/lib/attribution";
import type { EnforcementReport } from "@/lib/enforcement-protocol";
import type { LiveGpu } from "@/lib/live";
import type { OpenAlertRef } from "@/server/alerts/alert-monitor";
import { recordHostAudit } from "@/server/enforcement/enforcement-audit";
import type { EnforcementChannel } from "@/server/enforcement/enforcement-channel";
import { planTerminations, type HostEnforcement } from "@/server/enforcement/enforcement-plan";
import { loadEnforcedHosts } from "@/server/enforcement/host-settings";
import type { RegisteredHost } from "@/server/hosts/host-registry";
import { log } from "@/server/log";
import { reservationClaimValue } from "@/server/reservations/reservation-proof";

/** A request is not repeated for the same process within this long (the agent may have refused it). */
const RESEND_AFTER_MS = 60 * 60_000;

export interface EnforcementLoopOptions {
  channel: EnforcementChannel;
  loginOf: (personId: string) => string | null;
  /** How often the hosts' settings are read again (an admin's change also applies at once, see `refresh`). */
  refreshMs?: number;
  loadSettings?: () => Promise<Map<string, HostEnforcement>>;
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
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly options: EnforcementLoopOptions) {}

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.options.refreshMs ?? 5000);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
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
      const commandId = randomUUID();
      const sent = this.options.channel.send(target.hostId, {
        commandId,
        pid: target.process.pid,
        startedAt: target.startedAt,
        gpuUuid: target.gpuUuid,
        alertId: target.alertId,
        reservationId: target.reservationId,
        // The agent compares the process's GPUDESK_RESERVATION as it is, so it is told the whole value, proof included:
        // a process naming the booking without the proof is not protected.
        protect: { reservationId: reservationClaimValue(target.reservationId), logins: target.holderLogin ? [target.holderLogin] : [] },
        killAfterSeconds: target.killAfterSeconds,
        reason: `in conflict with booking ${target.reservationId} on ${target.gpuUuid}`,
      });
      if (!sent) continue;
      this.sent.set(key, nowMs);
      void recordHostAudit({
        hostId: target.hostId,
        action: "enforcement.requested",
        at: new Date(nowMs),
        after: {
          commandId,
          pid: target.process.pid,
          login: target.process.login,
          person: target.process.person,
          evidence: target.process.evidence,
          command: target.command,
          gpuUuid: target.gpuUuid,
          reservationId: target.reservationId,
          holderId: target.holderId,
          alertId: target.alertId,
          killAfterSeconds: target.killAfterSeconds,
        },
      }).catch((error: unknown) => log.error(`could not audit an enforcement request: ${error instanceof Error ? error.message : String(error)}`));
    }
  }
}

/** What an agent did about a request: into the audit log, as an entry about its host. */
export async function recordEnforcementReport(host: RegisteredHost, report: EnforcementReport): Promise<void> {
  log.info(`enforcement on ${host.name}: pid ${report.pid} ${report.action} (${report.detail})`);
  await recordHostAudit({ hostId: host.id, action: `enforcement.${report.action}`, at: new Date(report.at), after: report });
}
