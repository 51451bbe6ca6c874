import type { AlertKind } from "@/lib/domain/alerts";
import type { RuleTiming } from "@/server/alerts/alert-engine";

/** The alert rules' thresholds and hold times (GPUDESK_ALERT_* in server/core/env.ts). */
export interface AlertConfig {
  holdMs: Record<AlertKind, number>;
  /** How long a condition must stay away before its alert closes. */
  clearMs: number;
  /** Memory pressure: used memory above this share of the total, in percent. */
  memoryAbovePct: number;
  /** Once memory pressure is pending or open, it stays bad down to this many points below the threshold. */
  memoryHysteresisPct: number;
  /** A subject unobserved this long (its host silent) is dropped and its alert closed. */
  staleMs: number;
}

export const DEFAULT_ALERT_CONFIG: AlertConfig = {
  holdMs: {
    conflict: 60_000,
    unbooked_use: 5 * 60_000,
    idle_booking: 30 * 60_000,
    memory_pressure: 60_000,
    gpu_health: 10_000,
    gpu_lost: 10_000,
    host_offline: 5 * 60_000,
  },
  clearMs: 60_000,
  memoryAbovePct: 95,
  memoryHysteresisPct: 5,
  staleMs: 10 * 60_000,
};

export function ruleTiming(config: AlertConfig): (kind: AlertKind) => RuleTiming {
  // An idle booking's hold is counted in stored minutes by its rule (alert-rules.ts), not by the engine's memory.
  return (kind) => ({ holdMs: kind === "idle_booking" ? 0 : config.holdMs[kind], clearMs: config.clearMs });
}

/** The configuration from the parsed environment. */
export function alertConfigFromEnv(env: {
  GPUDESK_ALERT_CONFLICT_AFTER: number;
  GPUDESK_ALERT_UNBOOKED_AFTER: number;
  GPUDESK_ALERT_IDLE_AFTER: number;
  GPUDESK_ALERT_MEMORY_AFTER: number;
  GPUDESK_ALERT_MEMORY_ABOVE_PCT: number;
  GPUDESK_ALERT_HEALTH_AFTER: number;
  GPUDESK_ALERT_HOST_OFFLINE_AFTER: number;
  GPUDESK_ALERT_CLEAR_AFTER: number;
}): AlertConfig {
  return {
    ...DEFAULT_ALERT_CONFIG,
    holdMs: {
      conflict: env.GPUDESK_ALERT_CONFLICT_AFTER,
      unbooked_use: env.GPUDESK_ALERT_UNBOOKED_AFTER,
      idle_booking: env.GPUDESK_ALERT_IDLE_AFTER,
      memory_pressure: env.GPUDESK_ALERT_MEMORY_AFTER,
      gpu_health: env.GPUDESK_ALERT_HEALTH_AFTER,
      gpu_lost: env.GPUDESK_ALERT_HEALTH_AFTER,
      host_offline: env.GPUDESK_ALERT_HOST_OFFLINE_AFTER,
    },
    clearMs: env.GPUDESK_ALERT_CLEAR_AFTER,
    memoryAbovePct: env.GPUDESK_ALERT_MEMORY_ABOVE_PCT,
  };
}
