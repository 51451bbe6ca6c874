import { periodicJob } from "@/server/core/jobs";
import { log } from "@/server/core/log";
import { demoEnded } from "@/server/demo/demo-choice";

/** How often a server running the demo looks whether the lab was chosen (on the page, or with `gpudesk demo off` from a shell). */
export const DEMO_CHOICE_CHECK_MS = 2_000;

/**
 * On a server that runs the simulated fleet: once the lab is chosen, stop
 * it (`stopDemo`: the embedded agents stop and their hosts leave the live
 * fleet). The choice is stored, so a restart does not start it again
 * (server/index.ts). Returns the function that stops watching.
 */
export function watchDemoChoice(stopDemo: () => Promise<void>): () => Promise<void> {
  let done = false;
  const job = periodicJob({
    name: "demo or lab",
    everyMs: DEMO_CHOICE_CHECK_MS,
    run: async () => {
      if (done || !(await demoEnded())) return;
      done = true;
      await stopDemo();
      log.info("the lab was chosen: the simulated fleet stopped (for good: a restart keeps it off)");
    },
  });
  return job.start();
}
