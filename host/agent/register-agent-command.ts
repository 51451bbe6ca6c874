import { type Command, Option } from "commander";

/** `gpudesk agent`, the same in the checkout's CLI and in the host bundle. */
export function registerAgentCommand(program: Command): void {
  program
    .command("agent")
    .description("run the collector on a GPU host and push to a gpudesk server")
    .option("--server <url>", "gpudesk server URL, e.g. http://gpudesk.lab:3000")
    .addOption(new Option("--token <token>", "host token from `gpudesk host add` (or GPUDESK_AGENT_TOKEN)").env("GPUDESK_AGENT_TOKEN"))
    .addOption(new Option("--source <source>", "where readings come from (default: nvidia-smi if found, else simulated)").choices(["nvidia-smi", "simulated"]))
    .option("--nvidia-smi <path>", "the nvidia-smi executable to run")
    .option("--interval <duration>", "time between readings, e.g. 1s, 500ms", "1s")
    .option("--proc-root <dir>", "where to read process ownership", "/proc")
    .addOption(
      new Option("--sysfs-infiniband <dir>", "where to read the host's InfiniBand/RoCE devices (or GPUDESK_SYSFS_INFINIBAND)")
        .env("GPUDESK_SYSFS_INFINIBAND")
        .default("/sys/class/infiniband"),
    )
    .option("--host-name <name>", "name of this host in logs and --once output")
    .option("--seed <n>", "seed of the simulated source", "42")
    .option("--buffer <n>", "readings kept while the server is unreachable (default: 2 hours)")
    .option("--once", "take one reading, print it and exit (no server)")
    .option("--json", "with --once: print the reading as JSON")
    .option("--allow-enforcement", "let the server have this agent terminate processes in conflict with a booking (SIGTERM, then SIGKILL)")
    .option("--enforce-min-uid <uid>", "with --allow-enforcement: never signal processes of uids below this (system users; root never)", "1000")
    .option("--sim-time <iso>", "with --source simulated: report the simulated fleet as it was at this time, then onwards")
    // Loaded when the command runs: the collector and socket.io stay out of every other command's start-up.
    .action(async (raw: Record<string, unknown>) => (await import("@/host/agent/agent-command")).runAgentCommand(raw));
}
