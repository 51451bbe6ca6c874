import type { Command } from "commander";
import { parseSpan } from "@/lib/domain/usage-range";
import { withDatabase } from "@/server/core/with-database";
import { parseEnv } from "@/server/core/env";
import { AppError } from "@/server/core/errors";

/** `gpudesk demo-history 7d`: the same synthetic history as `serve --demo-history`, into the configured database. */
export function registerHistoryCommands(program: Command): void {
  program
    .command("demo-history")
    .description("fill synthetic usage history of the simulated fleet (marked simulated), up to now or the first real reading")
    .argument("<span>", "how far back, e.g. 7d, 24h, 2w")
    .action(async (span: string) => {
      const spanMs = parseSpan(span);
      if (spanMs === null) throw new AppError("bad_request", `not a span: ${span} (use e.g. 7d, 24h, 2w)`);
      const env = parseEnv();
      await withDatabase(async () => {
        const { fillSimulatedFleetHistory } = await import("@/server/history/demo-history");
        await fillSimulatedFleetHistory({
          seed: env.GPUDESK_SIM_SEED,
          gpuCount: env.GPUDESK_SIM_GPUS,
          spanMs,
          report: (line) => process.stderr.write(`${line}\n`),
        });
      });
    });
}
