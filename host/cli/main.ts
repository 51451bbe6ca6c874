// Entry of the host bundle (scripts/build-host-bundle.mjs): the agent and the member CLI, nothing of the server.
import { createHostProgram, describeCliError } from "@/host/cli/host-program";

createHostProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    process.stderr.write(`gpudesk: ${describeCliError(error)}\n`);
    process.exit(1);
  });
