import { createHmac, timingSafeEqual } from "node:crypto";
import { loadAuthSecret } from "@/server/auth/auth-secret";
import { env } from "@/server/core/env";

/**
 * The secret in a calendar feed's address, `/api/v1/calendar/<secret>.ics`:
 * a calendar app fetches it without signing in, so the address is the key.
 * Derived, not stored, as a booking's proof is (server/bookings/
 * reservation-proof.ts): HMAC-SHA256 of what the feed shows under the
 * server's auth secret. A person's feed: `p-<userId>.<mac>`. A host's feed
 * names the admin it was given to, `h-<hostId>~<adminId>.<mac>`, and
 * answers only while that person is still an admin. The MAC also covers
 * the person's `calendarFeedKey` (the admin's, for a host feed), which a
 * password change or reset renews: that voids the addresses they gave out.
 * Rotating the auth secret voids every feed address.
 */

const DOMAIN = "gpudesk-calendar-feed:";
const MAC_BYTES = 24;

export type FeedSubject = { kind: "person"; userId: string } | { kind: "host"; hostId: string; adminId: string };

let cachedSecret: string | undefined;
function serverSecret(): string {
  cachedSecret ??= loadAuthSecret(env().GPUDESK_AUTH_SECRET, env().dataDir);
  return cachedSecret;
}

function subjectText(subject: FeedSubject): string {
  return subject.kind === "person" ? `p-${subject.userId}` : `h-${subject.hostId}~${subject.adminId}`;
}

/** The person's feed key joins the MAC; the first key ("") leaves it as addresses were before keys existed. */
function mac(body: string, feedKey: string, secret: string): Buffer {
  return createHmac("sha256", secret)
    .update(DOMAIN + body + (feedKey ? `:${feedKey}` : ""))
    .digest()
    .subarray(0, MAC_BYTES);
}

/** `feedKey`: the calendarFeedKey of the person (a person's feed) or of the admin (a host's). */
export function calendarFeedSecret(subject: FeedSubject, feedKey: string, secret: string = serverSecret()): string {
  const body = subjectText(subject);
  return `${body}.${mac(body, feedKey, secret).toString("base64url")}`;
}

/** Whose feed an address claims to be (not yet checked): the person whose feed key checks it. */
export function claimedFeedOwner(value: string): string | null {
  const match = SHAPE.exec(value);
  if (!match) return null;
  const body = match[1];
  return body.startsWith("p-") ? body.slice(2) : (body.slice(2).split("~")[1] ?? null);
}

const SHAPE = /^(p-[A-Za-z0-9_-]{1,64}|h-[A-Za-z0-9_-]{1,64}~[A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{32})$/;

/** What a feed address names, or null when it is not one this server gave out. Compares in constant time. */
export function checkCalendarFeedSecret(value: string, feedKey: string, secret: string = serverSecret()): FeedSubject | null {
  const match = SHAPE.exec(value);
  if (!match) return null;
  const [, body, offered] = match;
  const given = Buffer.from(offered, "base64url");
  const expected = mac(body, feedKey, secret);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  if (body.startsWith("p-")) return { kind: "person", userId: body.slice(2) };
  const [hostId, adminId] = body.slice(2).split("~");
  return { kind: "host", hostId, adminId };
}
