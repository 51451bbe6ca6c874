import type { EnforcementChannel } from "@/server/enforcement/enforcement-channel";
import { EnforcementLoop } from "@/server/enforcement/enforcement-loop";
import type { TickConsumer } from "@/server/tick/tick-view";

export interface EnforcementOptions {
  /** To the agents and back (every instance has one: reports arrive where the agent is connected). */
  channel: EnforcementChannel;
  loginOf: (personId: string) => string | null;
}

export interface EnforcementConsumer extends TickConsumer {
  /** An admin changed a host's enforcement: read the settings again now. */
  settingsChanged(): void;
}

/**
 * "Terminate intruders after a grace period" as a consumer of the tick
 * (leader only): after the alert rules, it asks the agents of enforced
 * hosts to end the processes of conflicts that outlasted their grace
 * (server/enforcement/enforcement-loop.ts); the conflicts the rules hold
 * open come in the view's findings, written by the rules this tick.
 */
export function enforcementConsumer(options: EnforcementOptions): EnforcementConsumer {
  let loop: EnforcementLoop | null = null;
  return {
    name: "enforcement",
    runs: "leader",
    settingsChanged: () => void loop?.refresh(),
    async start() {
      const term = new EnforcementLoop({ channel: options.channel, loginOf: options.loginOf });
      await term.start();
      loop = term;
    },
    consume(view) {
      loop?.tick(view.nowMs, view.findings.openAlerts?.values() ?? [], view.gpuStates, view.gpus);
    },
    async stop() {
      const term = loop;
      loop = null;
      await term?.stop();
    },
  };
}
