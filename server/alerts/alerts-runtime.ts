import type { GpuReconciliation } from "@/lib/attribution";

/** What the routes (loaded in Next's bundles) may ask the running server's reconciliation. */
export interface AlertsRuntime {
  /** The last reconciliation of every GPU: state, holder, who runs and by what evidence. */
  gpuStates(): Record<string, GpuReconciliation>;
  /** An agent of the host is connected and was started with --allow-enforcement. */
  agentAllowsEnforcement(hostId: string): boolean;
  /** An admin changed a host's enforcement: read the settings again now. */
  settingsChanged(): void;
}

// Shared through globalThis, like server/runtime.ts: the custom server and
// Next's route bundles load separate copies of this module.
const holder = globalThis as unknown as { __gpudeskAlerts?: AlertsRuntime };

export function setAlertsRuntime(runtime: AlertsRuntime | undefined): void {
  holder.__gpudeskAlerts = runtime;
}

/** The running server's reconciliation, or null outside one (tests of routes, the CLI). */
export function alertsRuntime(): AlertsRuntime | null {
  return holder.__gpudeskAlerts ?? null;
}
