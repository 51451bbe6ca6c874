import { canAcknowledgeAlert, type AlertKind } from "@/lib/domain/alerts";
import { isAdminRole } from "@/lib/domain/roles";
import type { Principal, Role } from "@/server/access/principal";

/**
 * Every "may this person do this" of gpudesk, in one place: routes,
 * services, sockets and pages ask `can.*`; the pages' answers come from
 * `answersFor` (the `can` object of `GET /api/v1/me`, and what PageShell
 * hands the browser). A check of the role anywhere else fails
 * server/access/permissions.test.ts. A rule that only an admin may do a
 * thing is still a rule of its own here, named for the thing, so that the
 * day a team lead may do it too it changes in one line.
 */

/** Who asks, as the checks need them: the signed-in person (an Actor) or any principal. */
export interface Asker {
  id: string;
  role: Role | string;
}

const admin = (who: Pick<Asker, "role"> | null | undefined): boolean => isAdminRole(who?.role);

/** The person of a principal, or null for a display or nobody. */
function personOf(principal: Principal | null | undefined): Asker | null {
  return principal?.kind === "user" ? principal.user : null;
}

export const can = {
  /** The admin pages and the fleet's settings: hosts, displays, people, teams and limits, booking rules, idle exemptions, enforcement, the audit log. */
  administer: (who: Pick<Asker, "role"> | null | undefined): boolean => admin(who),
  /** The same, asked of a principal (a display token or nobody may not). */
  administerAs: (principal: Principal | null | undefined): boolean => admin(personOf(principal)),

  /** Release, extend, see the proof of, move a node of, keep: the booker their own, an admin everyone's. */
  manageBooking: (who: Asker, booking: { userId: string }): boolean => who.id === booking.userId || admin(who),
  /** End someone's booking with a reason (cancel). */
  cancelBooking: (who: Asker): boolean => admin(who),
  /** Shorten someone else's booking, with a reason (only the booker may extend). */
  shortenOthersBooking: (who: Asker): boolean => admin(who),
  /** List everyone's bookings (`?all=1`, the admin's list on /reservations). */
  seeAllBookings: (who: Asker | null | undefined): boolean => admin(who),
  /** Leave the queue: one's own request; an admin takes anyone's off. */
  manageWaitlistEntry: (who: Asker, entry: { userId: string }): boolean => who.id === entry.userId || admin(who),
  /** Take someone else's request off the queue. */
  removeOthersWaitlistEntries: (who: Asker): boolean => admin(who),

  /** An alert: admins see every one; anyone else those that involve them. */
  seeAlert: (who: Asker, involvedIds: readonly string[]): boolean => admin(who) || involvedIds.includes(who.id),
  /** Every alert, not only one's own (`mine` off). */
  seeAllAlerts: (who: Asker | null | undefined): boolean => admin(who),
  /** Acknowledge an alert; misuse alerts (use without a booking) are an admin's call alone. The rule is lib/domain/alerts.ts's, which the alerts page asks too. */
  acknowledgeAlert: (who: Asker, alert: { kind: AlertKind; bookedById: string | null; reservationId: string | null; involvedIds: readonly string[] }): boolean =>
    canAcknowledgeAlert({ id: who.id, acknowledgesEveryAlert: can.acknowledgeEveryAlert(who) }, alert),
  /** Acknowledge any alert, misuse alerts among them (the alerts page reads it from `/api/v1/me`). */
  acknowledgeEveryAlert: (who: Asker | null | undefined): boolean => admin(who),

  /** Usage of everyone (the usage page's fleet scope, the efficiency of anyone's bookings). */
  seeAllUsage: (who: Asker | null | undefined): boolean => admin(who),
  /** Every team's usage; a lead sees the teams they lead (team-usage.ts asks the database for those). */
  seeEveryTeamsUsage: (who: Asker | null | undefined): boolean => admin(who),
  /** Each host's calendar feed. */
  subscribeToHostCalendars: (who: Asker | null | undefined): boolean => admin(who),

  /** A webhook: the fleet-wide ones (userId null) are the admins'; a personal one its owner's. */
  manageWebhook: (who: Asker, webhook: { userId: string | null }): boolean => (webhook.userId === null ? admin(who) : webhook.userId === who.id),
  /** The fleet-wide webhooks (list, add). */
  manageFleetWebhooks: (who: Asker): boolean => admin(who),
  /** Everyone's mail and webhook deliveries, not only one's own. */
  seeAllDeliveries: (who: Asker): boolean => admin(who),
  /** What the far side answered a delivery (status, error): admins only, lest the log probe what the server reaches. */
  seeDeliveryErrors: (who: Asker): boolean => admin(who),

  /** A personal token: its owner's; an admin may revoke anyone's. */
  revokeToken: (who: Asker, token: { userId: string }): boolean => token.userId === who.id || admin(who),

  /** The instance's name in /api/health (it holds the server's hostname and process id). */
  seeInstanceName: (principal: Principal | null | undefined): boolean => admin(personOf(principal)),
  /** The live feed's admins' room (every alert, as it opens). */
  joinAdminsRoom: (who: Asker): boolean => admin(who),
};

/** What the pages may offer a person: the `can` object of `GET /api/v1/me`, and of the signed-in page's person. */
export interface PageAnswers {
  /** The admin menu and pages. */
  administer: boolean;
  /** Cancel someone's booking. */
  cancelBookings: boolean;
  /** Take someone's request off the queue. */
  removeOthersWaitlistEntries: boolean;
  /** The list of everyone's bookings. */
  seeAllBookings: boolean;
  /** Every alert, and "nothing needs attention" fleet-wide. */
  seeAllAlerts: boolean;
  /** Acknowledge any alert, misuse alerts among them. */
  acknowledgeEveryAlert: boolean;
  /** The usage page's fleet scope, every team's usage. */
  seeAllUsage: boolean;
}

/** The answers a page shows by: computed here, read by /api/v1/me and by PageShell alike. */
export function answersFor(who: Asker): PageAnswers {
  return {
    administer: can.administer(who),
    cancelBookings: can.cancelBooking(who),
    removeOthersWaitlistEntries: can.removeOthersWaitlistEntries(who),
    seeAllBookings: can.seeAllBookings(who),
    seeAllAlerts: can.seeAllAlerts(who),
    acknowledgeEveryAlert: can.acknowledgeEveryAlert(who),
    seeAllUsage: can.seeAllUsage(who),
  };
}
