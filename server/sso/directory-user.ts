import { randomUUID } from "node:crypto";
import { Prisma } from "@prisma/client";
import type { Role } from "@/server/auth/principal";
import { toRole } from "@/server/auth/tokens";
import { releaseFromDemoAccounts, unixLoginSchema, usernameSchema } from "@/server/auth/users";
import { db } from "@/server/db";
import { env } from "@/server/env";
import { disconnectLivePrincipal } from "@/server/fleet/live-revocation";
import { log } from "@/server/log";
import { mapGroups } from "@/server/sso/groups";
import { applyDirectoryTeams } from "@/server/sso/teams";

/** A person as the lab's directory (an OIDC provider or LDAP) describes them, not yet checked. */
export interface DirectoryPerson {
  /** Where they signed in: "oidc" or "ldap". */
  source: "oidc" | "ldap";
  /** The provider's stable id for them (OIDC `sub`), when it has one. */
  subject?: string;
  username: string;
  name?: string;
  /** Their Unix login from the directory; undefined: the directory names none. */
  unixLogin?: string;
  groups: readonly string[];
}

export type ProvisionResult =
  | { ok: true; user: { id: string; email: string; username: string } }
  | { ok: false; reason: "invalid_username" | "not_registered"; message: string };

/** The email better-auth needs for each account; gpudesk's are username-only (as createUser makes them). */
export function accountEmail(username: string): string {
  return `${username}@users.gpudesk.invalid`;
}

/**
 * A directory username as a gpudesk username: lower case, without an
 * `@domain` (Entra's and AD's user principal names), and only if it is a
 * valid gpudesk username then (never rewritten into another one, which
 * could be someone else's).
 */
export function directoryUsername(raw: string): string | null {
  const local = raw.trim().split("@")[0] ?? "";
  const parsed = usernameSchema.safeParse(local);
  return parsed.success ? parsed.data : null;
}

const userSelect = { id: true, email: true, username: true, role: true, unixLogin: true, name: true, simulated: true } as const;

async function findPerson(person: DirectoryPerson, username: string) {
  if (person.subject) {
    const account = await db().account.findFirst({
      where: { providerId: person.source, accountId: person.subject },
      select: { user: { select: userSelect } },
    });
    if (account) return account.user;
  }
  const user = await db().user.findUnique({ where: { username }, select: userSelect });
  // A demo account of the simulated fleet is never signed into: a real person takes its name.
  return user?.simulated ? null : user;
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

/** The role the directory gives, unless that would leave the fleet without an admin. */
async function directoryRole(current: { id: string; role: string } | null, wanted: Role | null): Promise<Role | null> {
  if (wanted === null || !current || toRole(current.role) === wanted) return wanted;
  if (wanted === "member" && toRole(current.role) === "admin") {
    const others = await db().user.count({ where: { role: "admin", id: { not: current.id }, OR: [{ banned: false }, { banned: null }] } });
    if (others === 0) {
      log.warn(`sso: ${current.id} is the last admin and not in an admin group; kept admin`);
      return null;
    }
  }
  return wanted;
}

/**
 * Creates or updates the gpudesk account of a person the directory has just
 * vouched for (a verified OIDC sign-in, a successful LDAP bind): their
 * name, their Unix login where the directory names one, their role where
 * admin groups are configured, their teams. Creates the account on first
 * sign-in unless GPUDESK_SSO_CREATE_USERS=0. A disabled account is answered
 * as it is (better-auth refuses its session).
 */
export async function provisionDirectoryUser(person: DirectoryPerson): Promise<ProvisionResult> {
  const config = env();
  const username = directoryUsername(person.username);
  if (!username) {
    return { ok: false, reason: "invalid_username", message: `The directory's username ${JSON.stringify(person.username.slice(0, 64))} is not a valid gpudesk username` };
  }
  const { role, teams } = mapGroups(person.groups, { adminGroups: config.GPUDESK_SSO_ADMIN_GROUPS, teamGroups: config.GPUDESK_SSO_TEAM_GROUPS });
  const name = person.name?.trim().slice(0, 100) || undefined;
  const existing = await findPerson(person, username);

  if (!existing) {
    if (!config.GPUDESK_SSO_CREATE_USERS) {
      return { ok: false, reason: "not_registered", message: `${username} has no gpudesk account; an admin must create it first` };
    }
    await releaseFromDemoAccounts({ username });
    const unixLogin = await freeUnixLogin(person.unixLogin ?? username, null);
    try {
      const created = await db().user.create({
        data: {
          id: randomUUID(),
          email: accountEmail(username),
          emailVerified: true,
          name: name ?? username,
          username,
          displayUsername: username,
          role: role ?? "member",
          unixLogin,
        },
        select: userSelect,
      });
      log.info(`sso: created ${username} (${created.role}) on first sign-in through ${person.source}`);
      await applyDirectoryTeams(created.id, teams);
      return { ok: true, user: { id: created.id, email: created.email, username } };
    } catch (error) {
      // Two first sign-ins at once: the other one created the account.
      if (!(error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")) throw error;
      return provisionDirectoryUser(person);
    }
  }

  const newRole = await directoryRole(existing, role);
  const unixLogin = person.unixLogin !== undefined && person.unixLogin !== existing.unixLogin ? await freeUnixLogin(person.unixLogin, existing.id) : null;
  const patch = {
    ...(name && name !== existing.name ? { name } : {}),
    ...(newRole && newRole !== toRole(existing.role) ? { role: newRole } : {}),
    ...(unixLogin ? { unixLogin } : {}),
  };
  if (Object.keys(patch).length > 0) {
    await db().user.update({ where: { id: existing.id }, data: patch });
    log.info(`sso: ${existing.username ?? username} updated from ${person.source}: ${Object.keys(patch).join(", ")}`);
    // Open live pages reconnect in the scope of the new role.
    if (patch.role) disconnectLivePrincipal({ kind: "user", id: existing.id });
  }
  await applyDirectoryTeams(existing.id, teams);
  return { ok: true, user: { id: existing.id, email: existing.email, username: existing.username ?? username } };
}
