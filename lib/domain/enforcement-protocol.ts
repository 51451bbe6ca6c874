import * as z from "zod";

/**
 * Enforcement over the `/agent` socket: the server asks an agent to
 * terminate one process; the agent answers with what it did. The agent
 * acts only when started with `--allow-enforcement`, and checks the
 * process itself before every signal (see host/agent/enforcer.ts).
 */

export const terminateCommandSchema = z.object({
  commandId: z.string().min(1).max(64),
  pid: z.number().int().positive(),
  /** The process's start time as the agent reported it: a reused pid is refused. */
  startedAt: z.iso.datetime().nullable(),
  gpuUuid: z.string().max(128),
  alertId: z.string().max(64),
  reservationId: z.string().max(128),
  /** Never terminated, whatever else is claimed: the booking's own processes and its booker's logins. */
  protect: z.object({
    /** The booking's whole GPUDESK_RESERVATION value, `<id>.<proof>`: a bare id (no proof) protects nothing. */
    reservationId: z.string().max(128),
    logins: z.array(z.string().max(256)).max(16),
  }),
  /** SIGKILL follows SIGTERM after this many seconds if the process is still there. */
  killAfterSeconds: z.number().int().min(1).max(3600),
  reason: z.string().max(500),
});
export type TerminateCommand = z.infer<typeof terminateCommandSchema>;

export const ENFORCEMENT_ACTIONS = ["sigterm", "sigkill", "exited", "gone", "refused"] as const;
export type EnforcementAction = (typeof ENFORCEMENT_ACTIONS)[number];

export const enforcementReportSchema = z.object({
  commandId: z.string().min(1).max(64),
  pid: z.number().int().positive(),
  action: z.enum(ENFORCEMENT_ACTIONS),
  detail: z.string().max(500),
  /** The process's owner and command line as the agent read them just before acting. */
  login: z.string().max(256).nullable(),
  command: z.string().max(1024).nullable(),
  at: z.iso.datetime(),
});
export type EnforcementReport = z.infer<typeof enforcementReportSchema>;
