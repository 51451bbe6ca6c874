import { test as base } from "@playwright/test";
import { startDisplayServer, type DisplayServer } from "./display-server";

/**
 * One simulated 160-GPU server per Playwright worker, for the specs that need
 * a fleet that size (fleet-scale, display-overview; both in the "own" lane,
 * so one worker runs them one after the other): started once (about 10 s at
 * load 5), read by both, booked by neither. Each spec adds the people and
 * display tokens it needs under names of its own.
 */
export const test = base.extend<object, { fleet160: DisplayServer }>({
  fleet160: [
    async ({}, use) => {
      const server = await startDisplayServer({ gpus: 160 });
      await use(server);
      await server.dispose();
    },
    { scope: "worker", timeout: 300_000 },
  ],
});
export { expect } from "@playwright/test";
