import { randomUUID } from "node:crypto";
import { Prisma } from "@prisma/client";
import { normalizeUsername, usernameSchema } from "@/lib/domain/username";
import type { Role } from "@/server/access/principal";
import { toRole } from "@/server/auth/tokens";
import { writeAudit } from "@/server/access/audit-log";
import { lockAdminChanges, otherActiveAdmins } from "@/server/auth/last-admin";
import { freeSyntheticEmail } from "@/server/auth/synthetic-email";
import { releaseFromDemoAccounts, unixLoginSchema } from "@/server/auth/users";
import { db } from "@/server/core/db";
import { env } from "@/server/core/env";
import { disconnectLivePrincipal } from "@/server/access/live-revocation";
import { log } from "@/server/core/log";
import { mapGroups } from "@/server/sso/groups";
import { applyDirectoryTeams } from "@/server/sso/teams";
import { isAdminRole } from "@/lib/domain/roles";

/** A person as the lab's directory (an OIDC provider or LDAP) describes them, not yet checked. */
export interface DirectoryPerson {
  /** Where they signed in: "oidc" or "ldap". */
  source: "oidc" | "ldap";
  /** The provider's stable id for them (OIDC `sub`, LDAP `entryUUID`/`objectGUID` or the entry's DN): what binds them to an account. */
  subject: string;
  username: string;
  name?: string;
  /** Their Unix login from the directory; undefined: the directory names none. */
  unixLogin?: string;
  groups: readonly string[];
}

export type ProvisionRefusal = "invalid_username" | "not_registered" | "not_linked" | "unavailable";

export type ProvisionResult =
  | { ok: true; user: { id: string; email: string; username: string } }
  | { ok: false; reason: ProvisionRefusal; message: string };

/** Account creation retried after a unique-constraint clash (a parallel first sign-in) before it gives up: bounded, never a loop. */
const CREATE_ATTEMPTS = 2;

/**
 * A directory username as a gpudesk username: lower case, without an
 * `@domain` (Entra's and AD's user principal names), and only if it is a
 * valid gpudesk username then (never rewritten into another one, which
 * could be someone else's).
 */
export function directoryUsername(raw: string): string | null {
  const local = normalizeUsername(raw).split("@")[0] ?? "";
  const parsed = usernameSchema.safeParse(local);
  return parsed.success ? parsed.data : null;
}

const userSelect = { id: true, email: true, username: true, role: true, unixLogin: true, name: true, simulated: true } as const;

type Found = { kind: "found"; user: { id: string; email: string; username: string | null; role: string; unixLogin: string | null; name: string } };

/**
 * The account this directory identity may sign into: the one its subject is
 * bound to; else the account of its username only when an admin linked it
 * (`directoryLink`), which binds the subject now, once; else none, or
 * "not_linked" where the username is someone's account that no admin gave
 * to the directory (a claim alone never takes an account).
 */
async function findPerson(person: DirectoryPerson, username: string): Promise<Found | { kind: "none" } | { kind: "not_linked" }> {
  const account = await db().account.findUnique({
    where: { providerId_accountId: { providerId: person.source, accountId: person.subject } },
    select: { user: { select: userSelect } },
  });
  if (account) return { kind: "found", user: account.user };
  const user = await db().user.findUnique({ where: { username }, select: { ...userSelect, directoryLink: true } });
  // A demo account of the simulated fleet is never signed into: a real person takes its name.
  if (!user || user.simulated) return { kind: "none" };
  if (!user.directoryLink) return { kind: "not_linked" };
  // Of two first sign-ins at once, one claims the link.
  const bound = await db().$transaction(async (tx) => {
    const claimed = await tx.user.updateMany({ where: { id: user.id, directoryLink: true }, data: { directoryLink: false } });
    if (claimed.count === 0) return false;
    await tx.account.create({ data: { id: randomUUID(), providerId: person.source, accountId: person.subject, userId: user.id } });
    await writeAudit(tx, { actorId: null, action: "user.directory_bind", entityType: "user", entityId: user.id, after: { source: person.source, subject: person.subject.slice(0, 200) } });
    return true;
  });
  return bound ? { kind: "found", user } : { kind: "not_linked" };
}

/** A Unix login the person may take: valid, and not a real person's already (a demo account's is released). */
async function freeUnixLogin(login: string | undefined, userId: string | null): Promise<string | null> {
  if (!login) return null;
  const parsed = unixLoginSchema.safeParse(login);
  if (!parsed.success) {
    log.warn(`sso: the directory's Unix login ${JSON.stringify(login)} is not a valid Unix login; not set`);
    return null;
  }
  await releaseFromDemoAccounts({ unixLogin: parsed.data });
  const owner = await db().user.findUnique({ where: { unixLogin: parsed.data }, select: { id: true, username: true } });
  if (owner && owner.id !== userId) {
    log.warn(`sso: the Unix login ${parsed.data} belongs to ${owner.username}; not given to another person`);
    return null;
  }
  return parsed.data;
}

/**
 * Creates or updates the gpudesk account of a person the directory has just
 * vouched for (a verified OIDC sign-in, a successful LDAP bind): their
 * name, their Unix login where the directory names one, their role where
 * admin groups are configured, their teams. Creates the account on first
 * sign-in unless GPUDESK_SSO_CREATE_USERS=0. A disabled account is answered
 * as it is (better-auth refuses its session).
 */
export async function provisionDirectoryUser(person: DirectoryPerson, attempt = 1): Promise<ProvisionResult> {
  const config = env();
  const username = directoryUsername(person.username);
  if (!username) {
    return { ok: false, reason: "invalid_username", message: `The directory's username ${JSON.stringify(person.username.slice(0, 64))} is not a valid gpudesk username` };
  }
  const { role, teams } = mapGroups(person.groups, { adminGroups: config.GPUDESK_SSO_ADMIN_GROUPS, teamGroups: config.GPUDESK_SSO_TEAM_GROUPS });
  const name = person.name?.trim().slice(0, 100) || undefined;
  let found;
  try {
    found = await findPerson(person, username);
  } catch (error) {
    // Two first sign-ins of a linked account at once: the other one bound it.
    if (!isUniqueClash(error) || attempt >= CREATE_ATTEMPTS) throw error;
    return provisionDirectoryUser(person, attempt + 1);
  }
  if (found.kind === "not_linked") {
    return { ok: false, reason: "not_linked", message: `${username} is a gpudesk account that no admin linked to the directory (or it is bound to another directory identity)` };
  }

  if (found.kind === "none") {
    if (!config.GPUDESK_SSO_CREATE_USERS) {
      return { ok: false, reason: "not_registered", message: `${username} has no gpudesk account; an admin must create it first` };
    }
    await releaseFromDemoAccounts({ username });
    const unixLogin = await freeUnixLogin(person.unixLogin ?? username, null);
    try {
      const created = await db().user.create({
        data: {
          id: randomUUID(),
          email: await freeSyntheticEmail(username),
          emailVerified: true,
          name: name ?? username,
          username,
          displayUsername: username,
          role: role ?? "member",
          unixLogin,
          // Made from the directory: bound to this identity from the start.
          accounts: { create: { id: randomUUID(), providerId: person.source, accountId: person.subject } },
        },
        select: userSelect,
      });
      log.info(`sso: created ${username} (${created.role}) on first sign-in through ${person.source}`);
      await applyDirectoryTeams(created.id, teams);
      return { ok: true, user: { id: created.id, email: created.email, username } };
    } catch (error) {
      if (!isUniqueClash(error)) throw error;
      // Two first sign-ins at once: the other one created the account (found the next time). Once, not in a loop.
      if (attempt < CREATE_ATTEMPTS) return provisionDirectoryUser(person, attempt + 1);
      log.error(`sso: the account ${username} could not be created: ${error instanceof Error ? error.message : String(error)}`);
      return { ok: false, reason: "unavailable", message: `The account ${username} could not be created (a name, address or Unix login clashed); an admin can create it` };
    }
  }
  const existing = found.user;

  const unixLogin = person.unixLogin !== undefined && person.unixLogin !== existing.unixLogin ? await freeUnixLogin(person.unixLogin, existing.id) : null;
  const wanted = {
    ...(name && name !== existing.name ? { name } : {}),
    ...(role && role !== toRole(existing.role) ? { role } : {}),
    ...(unixLogin ? { unixLogin } : {}),
  };
  const patch = Object.keys(wanted).length > 0 ? await db().$transaction((tx) => updateFromDirectory(tx, existing, wanted)) : wanted;
  if (Object.keys(patch).length > 0) {
    log.info(`sso: ${existing.username ?? username} updated from ${person.source}: ${Object.keys(patch).join(", ")}`);
    // Open live pages reconnect in the scope of the new role.
    if (patch.role) disconnectLivePrincipal({ kind: "user", id: existing.id });
  }
  await applyDirectoryTeams(existing.id, teams);
  return { ok: true, user: { id: existing.id, email: existing.email, username: existing.username ?? username } };
}

/**
 * Writes what the directory changed, in one transaction; a demotion that
 * would leave the fleet without an admin is left out (the last admin stays
 * admin), counted after any other change that takes away an admin.
 */
async function updateFromDirectory(
  tx: Prisma.TransactionClient,
  existing: { id: string; role: string },
  wanted: { name?: string; role?: Role; unixLogin?: string },
): Promise<{ name?: string; role?: Role; unixLogin?: string }> {
  const patch = { ...wanted };
  if (patch.role !== undefined && !isAdminRole(patch.role) && isAdminRole(toRole(existing.role))) {
    await lockAdminChanges(tx);
    if ((await otherActiveAdmins(tx, existing.id)) === 0) {
      log.warn(`sso: ${existing.id} is the last admin and not in an admin group; kept admin`);
      delete patch.role;
    }
  }
  if (Object.keys(patch).length > 0) await tx.user.update({ where: { id: existing.id }, data: patch });
  return patch;
}

function isUniqueClash(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}
