import * as z from "zod";

/**
 * What a server is: the demo (the simulated fleet and its demo people, as
 * the README's first start shows it) or the lab. The first admin is asked
 * once; "lab" ends the demo for good (server/demo/demo-choice.ts).
 */
export const DEMO_CHOICES = ["demo", "lab"] as const;
export type DemoChoice = (typeof DEMO_CHOICES)[number];

/** POST /api/v1/demo: the page's two buttons send this. */
export const demoChoiceSchema = z.object({ choice: z.enum(DEMO_CHOICES) });

/** GET /api/v1/demo. */
export interface DemoStatus {
  /** null: nobody has chosen yet. */
  choice: DemoChoice | null;
  chosenAt: string | null;
  /** The simulated fleet's hosts registered here (0 once the lab was chosen, or on a server that never ran it). */
  simulatedHosts: number;
  /** Real hosts that have reported here (registered and never heard from: not counted). */
  realHosts: number;
  /** Whether the page asks this viewer now: an admin, nobody chose yet, the demo runs. */
  ask: boolean;
}

/** What choosing the lab did: the page and `gpudesk demo off` say it in these numbers. */
export interface DemoEnded {
  /** The demo people retired (usernames): no sign-in, no Unix login; their past usage keeps their names. */
  retired: string[];
  bookingsEnded: number;
  bookingsCancelled: number;
  alertsClosed: number;
  simulatedHosts: number;
}

/** One sentence of what "the lab" did, for the page, the CLI and the audit log's reader. */
export function describeDemoEnded(done: DemoEnded): string {
  const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
  const people = done.retired.length === 0 ? "no demo people" : `the demo people ${done.retired.join(", ")}`;
  return (
    `The demo is over: the simulated fleet (${plural(done.simulatedHosts, "host")}) stopped; ${people} can no longer sign in or own a process ` +
    `(past usage keeps their names); ${plural(done.bookingsEnded + done.bookingsCancelled, "demo booking")} ended and ${plural(done.alertsClosed, "demo alert")} closed. ` +
    "Real hosts and their bookings are as they were."
  );
}
