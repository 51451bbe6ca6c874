import { Command } from "commander";
import { ZodError } from "zod";
import { GPUDESK_VERSION } from "@/lib/version";
import { registerAgentCommand } from "@/host/agent/register-agent-command";
import { registerClientCommands } from "@/host/cli-client/client-commands";

export const PROGRAM_DESCRIPTION = "See, book and settle who uses which GPU on shared multi-GPU servers.";

/**
 * What runs on a GPU host: the agent and the member commands. The host bundle
 * (dist/gpudesk.mjs) is this program alone; the checkout's `gpudesk` adds the
 * server and database commands to the same registrations.
 */
export function createHostProgram(): Command {
  const program = new Command().name("gpudesk").description(PROGRAM_DESCRIPTION).version(GPUDESK_VERSION).showHelpAfterError();
  registerAgentCommand(program);
  registerClientCommands(program);
  return program;
}

/**
 * The line printed for a failed command: expected failures (bad flags, the
 * server's refusal) as their message alone, anything else with its stack for
 * a bug report. The host-side errors are told apart by name, not class, so
 * that the server's CLI recognizes them the same way.
 */
export function describeCliError(error: unknown): string {
  if (error instanceof ZodError) {
    return error.issues.map((issue) => `${issue.path.join(".") || "input"} ${issue.message}`).join("; ");
  }
  if (error instanceof Error && (error.name === "UsageError" || error.name === "APIError")) return error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
