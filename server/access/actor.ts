import type { PrismaClient } from "@prisma/client";
import type { UserPrincipal } from "@/server/access/principal";

/** The signed-in person a booking service acts for (from `requireUser`). */
export type Actor = UserPrincipal["user"];

export interface ServiceOptions {
  /** The current time; tests pin it. */
  now?: Date;
  /** Another connection to the same database; tests use it to prove the lock across connections. */
  client?: PrismaClient;
}
