import { Command, Option } from "commander";
import { ZodError } from "zod";
import { runAgentCommand } from "@/server/agent/agent-command";
import { registerAdminCommands, withDatabase } from "@/server/cli-admin";
import { registerClientCommands } from "@/server/cli-client/client-commands";
import { ConfigError, parseEnv } from "@/server/env";
import { AppError } from "@/server/errors";
import { registerHistoryCommands } from "@/server/history/history-commands";

const program = new Command()
  .name("gpudesk")
  .description("See, book and settle who uses which GPU on shared multi-GPU servers.")
  .showHelpAfterError();

program
  .command("serve")
  .description("start the dashboard server (what `npm start` runs)")
  .option("--dev", "development mode with hot reload")
  .option("--demo-history <span>", "with the simulated fleet: fill this much synthetic usage history first, e.g. 7d (or GPUDESK_DEMO_HISTORY)")
  .action(async (options: { dev?: boolean; demoHistory?: string }) => {
    const env = parseEnv(options.demoHistory ? { ...process.env, GPUDESK_DEMO_HISTORY: options.demoHistory } : process.env);
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

program
  .command("agent")
  .description("run the collector on a GPU host and push to a gpudesk server")
  .option("--server <url>", "gpudesk server URL, e.g. http://gpudesk.lab:3000")
  .addOption(new Option("--token <token>", "host token from `gpudesk host add` (or GPUDESK_AGENT_TOKEN)").env("GPUDESK_AGENT_TOKEN"))
  .addOption(new Option("--source <source>", "where readings come from (default: nvidia-smi if found, else simulated)").choices(["nvidia-smi", "simulated"]))
  .option("--nvidia-smi <path>", "the nvidia-smi executable to run")
  .option("--interval <duration>", "time between readings, e.g. 1s, 500ms", "1s")
  .option("--proc-root <dir>", "where to read process ownership", "/proc")
  .option("--host-name <name>", "name of this host in logs and --once output")
  .option("--seed <n>", "seed of the simulated source", "42")
  .option("--buffer <n>", "readings kept while the server is unreachable (default: 2 hours)")
  .option("--once", "take one reading, print it and exit (no server)")
  .option("--json", "with --once: print the reading as JSON")
  .option("--allow-enforcement", "let the server have this agent terminate processes in conflict with a booking (SIGTERM, then SIGKILL)")
  .option("--sim-time <iso>", "with --source simulated: report the simulated fleet as it was at this time, then onwards")
  .action(runAgentCommand);

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
        `On ${created.name}: GPUDESK_AGENT_TOKEN=<token> npx gpudesk agent --server http://THIS-SERVER:PORT\n`,
    );
  });

registerAdminCommands(program);
registerHistoryCommands(program);
registerClientCommands(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  // Expected failures are one clear line; anything else keeps its stack for a bug report.
  if (error instanceof AppError || error instanceof ConfigError) {
    process.stderr.write(`gpudesk: ${error.message}\n`);
  } else if (error instanceof ZodError) {
    process.stderr.write(`gpudesk: ${error.issues.map((issue) => `${issue.path.join(".") || "input"} ${issue.message}`).join("; ")}\n`);
  } else if (error instanceof Error && (error.name === "UsageError" || error.name === "APIError")) {
    process.stderr.write(`gpudesk: ${error.message}\n`);
  } else {
    process.stderr.write(`gpudesk: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});
