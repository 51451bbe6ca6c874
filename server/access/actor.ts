import type { PrismaClient } from "@prisma/client";
import type { UserPrincipal } from "@/server/access/principal";

/** The signed-in person a reservation service acts for (from `requireUser`). */
export type Actor = UserPrincipal["user"];

export function isAdminActor(actor: Actor): boolean {
  return actor.role === "admin";
}

/** The booker manages their own booking; an admin manages everyone's. */
export function canManageReservation(actor: Actor, reservation: { userId: string }): boolean {
  return actor.id === reservation.userId || isAdminActor(actor);
}

export interface ServiceOptions {
  /** The current time; tests pin it. */
  now?: Date;
  /** Another connection to the same database; tests use it to prove the lock across connections. */
  client?: PrismaClient;
}
