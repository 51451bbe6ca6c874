import { Command } from "commander";
import { installLine } from "@/lib/install-line";
import { GPUDESK_VERSION } from "@/lib/version";
import { registerAgentCommand } from "@/host/agent/register-agent-command";
import { registerAdminCommands } from "@/server/cli-admin";
import { withDatabase } from "@/server/core/with-database";
import { registerClientCommands } from "@/host/cli-client/client-commands";
import { ConfigError, parseEnv } from "@/server/core/env";
import { boundHeapGrowth } from "@/server/core/heap-growth";
import { AppError } from "@/server/core/errors";
import { registerHistoryCommands } from "@/server/history/history-commands";
import { describeCliError, PROGRAM_DESCRIPTION } from "@/host/cli/host-program";
import { plugSingleSignOn } from "@/server/main/sign-in";

const program = new Command()
  .name("gpudesk")
  .description(PROGRAM_DESCRIPTION)
  .version(GPUDESK_VERSION)
  .showHelpAfterError();

program
  .command("serve")
  .description("start the dashboard server (what `npm start` runs)")
  .option("--dev", "development mode with hot reload")
  .option("--demo-history <span>", "with the simulated fleet: fill this much synthetic usage history first, e.g. 7d (or GPUDESK_DEMO_HISTORY)")
  .action(async (options: { dev?: boolean; demoHistory?: string }) => {
    const env = parseEnv(options.demoHistory ? { ...process.env, GPUDESK_DEMO_HISTORY: options.demoHistory } : process.env);
    boundHeapGrowth();
    const { startServer } = await import("@/server/index");
    const server = await startServer({ env, dev: Boolean(options.dev) });
    let closing = false;
    const shutdown = async (signal: string) => {
      if (closing) return;
      closing = true;
      process.stderr.write(`${signal}: shutting down\n`);
      const force = setTimeout(() => process.exit(1), 10_000);
      force.unref();
      await server.close();
      process.exit(0);
    };
    process.on("SIGINT", () => void shutdown("SIGINT"));
    process.on("SIGTERM", () => void shutdown("SIGTERM"));
  });

registerAgentCommand(program);

const host = program.command("host").description("manage GPU hosts");
host
  .command("add")
  .description("register a GPU host and print its agent token (shown once)")
  .argument("<name>", "host name, e.g. node-a")
  .action(async (name: string) => {
    const { host: created, token } = await withDatabase(async () => {
      const { createHost } = await import("@/server/hosts/host-registry");
      return createHost(name);
    });
    process.stdout.write(`${token}\n`);
    process.stderr.write(
      `Registered host ${created.name}. Its token is printed above, once; keep it secret.\n` +
        `On ${created.name}, as root: ${installLine(parseEnv().GPUDESK_PUBLIC_URL ?? "http://THIS-SERVER:PORT")} (it asks for the token)\n`,
    );
  });

registerAdminCommands(program);
registerHistoryCommands(program);
registerClientCommands(program);

// Accounts made here (gpudesk user add) go through the same sign-in as the server's.
plugSingleSignOn();
program.parseAsync(process.argv).catch((error: unknown) => {
  // Expected failures are one clear line; anything else keeps its stack for a bug report.
  const line = error instanceof AppError || error instanceof ConfigError ? error.message : describeCliError(error);
  process.stderr.write(`gpudesk: ${line}\n`);
  process.exit(1);
});
