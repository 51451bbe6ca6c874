import { randomBytes } from "node:crypto";
import type { Prisma } from "@prisma/client";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";

/**
 * better-auth needs an address per account; gpudesk makes one up until the
 * person gives theirs, in the reserved `.invalid` top-level domain (RFC 2606):
 * nobody can receive mail there, and nobody may choose such an address as
 * their own (`isReservedAddress` in lib/domain/mail-address.ts), so a made-up address never lands in
 * someone else's hands.
 */
export const SYNTHETIC_DOMAINS = { users: "users.gpudesk.invalid", simulated: "simulated.gpudesk.invalid" } as const;

type Client = Pick<Prisma.TransactionClient, "user">;

/**
 * A made-up address for an account named `username` that no account holds:
 * `username@users.gpudesk.invalid`, or with a random suffix when that one is
 * taken (an address squatted before the reserved domain was refused).
 * Two tries, never a loop.
 */
export async function freeSyntheticEmail(username: string, kind: keyof typeof SYNTHETIC_DOMAINS = "users", client: Client = db()): Promise<string> {
  const candidates = [`${username}@${SYNTHETIC_DOMAINS[kind]}`, `${username}.${randomBytes(6).toString("hex")}@${SYNTHETIC_DOMAINS[kind]}`];
  for (const email of candidates) {
    if (!(await client.user.findUnique({ where: { email }, select: { id: true } }))) return email;
  }
  throw new AppError("conflict", `No free made-up address for ${username}: try again`);
}
