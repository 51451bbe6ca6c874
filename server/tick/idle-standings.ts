import { processEvent } from "@/server/core/process-events";
import type { IdleRun } from "@/server/tick/tick-view";

/**
 * Idle release's standings, announced after each of its passes over stored
 * minutes (server/idle-release/, on the leader): the alert rules keep the
 * latest as the idle-booking alert's clock. A pass runs on idle release's
 * own job, not in a tick, so this travels as an announcement rather than in
 * the view's findings; neither consumer reaches into the other.
 */
const idleStandings = processEvent<ReadonlyMap<string, IdleRun>>("__gpudeskIdleStandingsListeners", "idle standings");

export const onIdleStandings = (listener: (standings: ReadonlyMap<string, IdleRun>) => void): (() => void) => idleStandings.on(listener);
export const announceIdleStandings = (standings: ReadonlyMap<string, IdleRun>): void => idleStandings.emit(standings);
