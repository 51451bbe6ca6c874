import type { PersonRef } from "@/lib/domain/booking-types";

/** Only what pages show of a person: never hashes or e-mail addresses. */
export const personSelect = { id: true, username: true, name: true } as const;

export function toPerson(user: { id: string; username: string | null; name: string }): PersonRef {
  return { id: user.id, username: user.username ?? user.name, name: user.name };
}
