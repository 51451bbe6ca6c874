import os from "node:os";
import * as z from "zod";

/** "1s", "500ms", "2m" or a bare number of seconds → milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/.exec(text.trim());
  if (!match) throw new Error(`not a duration: ${text} (use e.g. 1s, 500ms, 2m)`);
  const value = Number(match[1]);
  const unit = match[2] ?? "s";
  return Math.round(value * (unit === "ms" ? 1 : unit === "s" ? 1000 : 60_000));
}

const durationMs = z.string().transform((text, ctx) => {
  try {
    return parseDuration(text);
  } catch (error) {
    ctx.addIssue({ code: "custom", message: (error as Error).message });
    return z.NEVER;
  }
});

/** The agent's flags, validated like any other input. */
export const agentOptionsSchema = z
  .object({
    server: z.url({ protocol: /^https?$/, error: "must be an http(s) URL, e.g. http://gpudesk.lab:3000" }).optional(),
    token: z.string().min(1).max(200).optional(),
    source: z.enum(["nvidia-smi", "simulated"]).optional(),
    nvidiaSmi: z.string().min(1).optional(),
    interval: durationMs.pipe(z.number().min(100, "must be at least 100ms").max(600_000, "must be at most 10m")).default(1000),
    procRoot: z.string().min(1).default("/proc"),
    sysfsInfiniband: z.string().min(1).default("/sys/class/infiniband"),
    hostName: z.string().min(1).max(253).default(os.hostname()),
    seed: z.coerce.number().int().default(42),
    buffer: z.coerce.number().int().min(1).max(1_000_000).optional(),
    once: z.boolean().default(false),
    json: z.boolean().default(false),
    /** Lets the server have this agent terminate processes in conflict with a booking (off unless given). */
    allowEnforcement: z.boolean().default(false),
    /** Enforcement never signals processes of uids below this (system users); root never, whatever it says. */
    enforceMinUid: z.coerce.number().int().min(1, "must be at least 1 (root is never signalled)").max(0xfffffffe).default(1000),
    /** Simulated source only: report the fleet as it was at this instant, then onwards at real speed. */
    simTime: z.iso.datetime({ offset: true, error: "must be an ISO time, e.g. 2026-11-30T14:00:00Z" }).optional(),
  })
  .superRefine((options, ctx) => {
    if (options.simTime && options.source !== "simulated") {
      ctx.addIssue({ code: "custom", path: ["simTime"], message: "needs --source simulated" });
    }
    if (options.once) return;
    if (!options.server) ctx.addIssue({ code: "custom", path: ["server"], message: "is required (or use --once)" });
    if (!options.token) ctx.addIssue({ code: "custom", path: ["token"], message: "is required: --token or GPUDESK_AGENT_TOKEN" });
  });

export type AgentOptions = z.output<typeof agentOptionsSchema>;
