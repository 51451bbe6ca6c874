import { APIError } from "better-auth/api";
import { z } from "zod";
import { text } from "@/lib/domain/plain-text";
import { passwordSchema } from "@/lib/domain/password";
import { normalizeUsername, usernameSchema } from "@/lib/domain/username";
import { writeAudit } from "@/server/access/audit-log";
import { resetPassword } from "@/server/auth/passwords";
import { auth } from "@/server/auth/better-auth";
import type { Role, UserPrincipal } from "@/server/access/principal";
import { toRole } from "@/server/auth/tokens";
import { lockAdminChanges, otherActiveAdmins } from "@/server/auth/last-admin";
import { freeSyntheticEmail } from "@/server/auth/synthetic-email";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import { isUniqueViolation } from "@/server/core/unique-violation";
import { disconnectLivePrincipal } from "@/server/access/live-revocation";
import { isAdminRole } from "@/lib/domain/roles";

export const unixLoginSchema = text()
  .trim()
  .min(1, "is required")
  .max(32, "is at most 32 characters")
  .regex(/^[a-z_][a-z0-9_.-]*\$?$/i, "is not a valid Unix login");

export const createUserSchema = z.object({
  username: usernameSchema,
  name: text().trim().max(100, "is at most 100 characters").optional(),
  password: passwordSchema,
  role: z.enum(["member", "admin"]).default("member"),
  unixLogin: unixLoginSchema.optional(),
  /**
   * The username or Unix login is a demo account's (the simulated fleet's
   * alice … frank): true takes it over, after the admin was told and agreed.
   */
  takeOverDemo: z.boolean().default(false),
  /** The lab's directory may take this account: the first OIDC or LDAP sign-in of this username binds to it. */
  directoryLink: z.boolean().default(false),
});

export const updateUserSchema = z
  .object({
    role: z.enum(["member", "admin"]).optional(),
    disabled: z.boolean().optional(),
    unixLogin: unixLoginSchema.nullable().optional(),
    name: text().trim().min(1).max(100).optional(),
    /** A new password, set by an admin: temporary (changed at the next sign-in) unless `mustChangePassword` is false. */
    password: passwordSchema.optional(),
    mustChangePassword: z.boolean().optional(),
    takeOverDemo: z.boolean().optional(),
    /** true: the next directory sign-in of this username takes the account (bound by its subject from then on); false: withdrawn. */
    directoryLink: z.boolean().optional(),
  })
  .refine((patch) => patch.mustChangePassword === undefined || patch.password !== undefined, { message: "mustChangePassword goes with a password", path: ["mustChangePassword"] })
  .refine((patch) => Object.keys(patch).length > 0, "Nothing to change");

export interface UserSummary {
  id: string;
  username: string;
  name: string;
  role: Role;
  unixLogin: string | null;
  disabled: boolean;
  createdAt: Date;
  /** The next directory sign-in of this username may take the account (an admin's link, not used yet). */
  directoryLink: boolean;
  /** A demo person of the simulated fleet (alice … frank): no password, marked "simulated" in Admin → Users. */
  simulated: boolean;
}

const userSelect = { id: true, username: true, name: true, role: true, unixLogin: true, banned: true, createdAt: true, directoryLink: true, simulated: true } as const;

function summarize(row: {
  id: string;
  username: string | null;
  name: string;
  role: string;
  unixLogin: string | null;
  banned: boolean | null;
  createdAt: Date;
  directoryLink: boolean;
  simulated: boolean;
}): UserSummary {
  return {
    id: row.id,
    username: row.username ?? row.name,
    name: row.name,
    role: toRole(row.role),
    unixLogin: row.unixLogin,
    disabled: Boolean(row.banned),
    createdAt: row.createdAt,
    directoryLink: row.directoryLink,
    simulated: row.simulated,
  };
}

/**
 * Creates an account through better-auth (which hashes the password). The
 * Unix login that links processes on hosts to the person defaults to the
 * username.
 */
export async function createUser(input: unknown): Promise<UserSummary> {
  const data = createUserSchema.parse(input);
  const unixLogin = data.unixLogin ?? data.username;
  await confirmDemoTakeOver({ username: data.username, unixLogin }, data.takeOverDemo);
  await releaseFromDemoAccounts({ username: data.username, unixLogin });
  await refuseTakenNames(data.username, unixLogin);
  const created = await auth()
    .api.createUser({
      body: {
        // better-auth needs an email; gpudesk accounts are username-only.
        email: await freeSyntheticEmail(data.username),
        password: data.password,
        name: data.name || data.username,
        role: data.role as "admin",
        data: { username: data.username, displayUsername: data.username, unixLogin },
      },
    })
    .catch(async (error: unknown) => {
      // A parallel request took the name or the login between the check and this write: answered as the check answers, not 500.
      if (isUniqueViolation(error) || (error instanceof APIError && (error.body as { code?: string } | undefined)?.code === "USERNAME_IS_ALREADY_TAKEN")) {
        await refuseTakenNames(data.username, unixLogin);
      }
      throw error;
    });
  const row = data.directoryLink
    ? await db().user.update({ where: { id: created.user.id }, data: { directoryLink: true }, select: userSelect })
    : await db().user.findUniqueOrThrow({ where: { id: created.user.id }, select: userSelect });
  await writeAudit(db(), {
    action: "user.create",
    entityType: "user",
    entityId: row.id,
    after: { username: data.username, role: data.role, unixLogin, ...(data.takeOverDemo ? { tookOverDemo: true } : {}), ...(data.directoryLink ? { directoryLink: true } : {}) },
  });
  return summarize(row);
}

/** 409 when someone has the username or the Unix login already. */
async function refuseTakenNames(username: string, unixLogin: string): Promise<void> {
  const [nameTaken, loginTaken] = await Promise.all([
    db().user.findUnique({ where: { username }, select: { id: true } }),
    db().user.findUnique({ where: { unixLogin }, select: { id: true } }),
  ]);
  if (nameTaken) throw new AppError("conflict", `The username ${username} is taken`, { username: "is taken" });
  if (loginTaken) throw new AppError("conflict", `The Unix login ${unixLogin} belongs to someone else`, { unixLogin: "belongs to someone else" });
}

/**
 * A demo person (User.simulated) holds this username or Unix login: unless
 * the admin agreed (`takeOverDemo`), say whose and stop, rather than take it
 * over silently (the demo person's own job would turn into a conflict).
 */
async function confirmDemoTakeOver(taken: { username?: string; unixLogin?: string }, agreed: boolean): Promise<void> {
  if (agreed) return;
  const demo = await db().user.findMany({
    where: { simulated: true, OR: [...(taken.username ? [{ username: taken.username }] : []), ...(taken.unixLogin ? [{ unixLogin: taken.unixLogin }] : [])] },
    select: { username: true, unixLogin: true },
  });
  if (demo.length === 0) return;
  const fields: Record<string, string> = {};
  if (taken.username && demo.some((row) => row.username === taken.username)) fields.username = "belongs to a demo person of the simulated fleet";
  if (taken.unixLogin && demo.some((row) => row.unixLogin === taken.unixLogin)) fields.unixLogin = "belongs to a demo person of the simulated fleet";
  const names = demo.map((row) => row.username).join(", ");
  throw new AppError(
    "demo_account",
    `The demo person ${names} of the simulated fleet has this ${fields.username ? "username" : "Unix login"}. Take it over? The demo account is renamed and loses the login; processes of that login become the new person's.`,
    fields,
  );
}

/**
 * A real person takes a username or Unix login from the simulated fleet's
 * demo account that holds it (the demo people are alice … frank, common
 * names in a lab): the demo account is renamed `NAME-sim` and loses the
 * login, so the person's processes on real hosts are theirs from then on.
 * Accounts of real people are never touched.
 */
export async function releaseFromDemoAccounts(taken: { username?: string; unixLogin?: string }): Promise<void> {
  if (taken.unixLogin) {
    await db().user.updateMany({ where: { unixLogin: taken.unixLogin, simulated: true }, data: { unixLogin: null } });
  }
  if (!taken.username) return;
  const demo = await db().user.findFirst({ where: { username: taken.username, simulated: true }, select: { id: true } });
  if (!demo) return;
  for (let n = 1; ; n++) {
    const username = n === 1 ? `${taken.username}-sim` : `${taken.username}-sim${n}`;
    if (await db().user.findUnique({ where: { username }, select: { id: true } })) continue;
    await db().user.update({
      where: { id: demo.id },
      data: { username, displayUsername: username, email: await freeSyntheticEmail(username, "simulated") },
    });
    return;
  }
}

type UserPatch = z.infer<typeof updateUserSchema>;

/** One audit entry per thing that changes: role, access, Unix login, name (the password has its own). */
function auditEntriesOf(current: { role: string; banned: boolean | null; unixLogin: string | null; name: string; directoryLink: boolean }, patch: UserPatch) {
  const entries: { action: "user.role" | "user.disable" | "user.enable" | "user.unix_login" | "user.rename" | "user.directory_link"; before: unknown; after: unknown }[] = [];
  if (patch.role !== undefined && patch.role !== toRole(current.role)) entries.push({ action: "user.role", before: { role: toRole(current.role) }, after: { role: patch.role } });
  if (patch.disabled !== undefined && patch.disabled !== Boolean(current.banned)) {
    entries.push({ action: patch.disabled ? "user.disable" : "user.enable", before: { disabled: Boolean(current.banned) }, after: { disabled: patch.disabled } });
  }
  if (patch.unixLogin !== undefined && patch.unixLogin !== current.unixLogin) {
    entries.push({ action: "user.unix_login", before: { unixLogin: current.unixLogin }, after: { unixLogin: patch.unixLogin } });
  }
  if (patch.name !== undefined && patch.name !== current.name) entries.push({ action: "user.rename", before: { name: current.name }, after: { name: patch.name } });
  if (patch.directoryLink !== undefined && patch.directoryLink !== current.directoryLink) {
    entries.push({ action: "user.directory_link", before: { directoryLink: current.directoryLink }, after: { directoryLink: patch.directoryLink } });
  }
  return entries;
}

export async function listUsers(): Promise<UserSummary[]> {
  const rows = await db().user.findMany({ select: userSelect, orderBy: { username: "asc" } });
  return rows.map(summarize);
}

/** People who can sign in: the demo accounts of the simulated fleet do not count. */
export async function countUsers(): Promise<number> {
  return db().user.count({ where: { simulated: false } });
}

export async function findUserByUsername(username: string): Promise<UserSummary | null> {
  const row = await db().user.findUnique({ where: { username: normalizeUsername(username) }, select: userSelect });
  return row ? summarize(row) : null;
}

/**
 * Changes role, Unix login or disabled state. Disabling signs the person out
 * everywhere at once (their sessions are deleted; their tokens stop working
 * because authentication checks the flag). The last admin cannot be demoted
 * or disabled, so the fleet never ends up without one.
 */
export async function updateUser(id: string, input: unknown, actor: UserPrincipal): Promise<UserSummary> {
  const patch = updateUserSchema.parse(input);
  const current = await db().user.findUnique({ where: { id }, select: userSelect });
  if (!current) throw new AppError("not_found", "No such user");
  const losesAdmin = isAdminRole(current.role) && ((patch.role !== undefined && !isAdminRole(patch.role)) || patch.disabled === true);
  if (patch.unixLogin) {
    await confirmDemoTakeOver({ unixLogin: patch.unixLogin }, patch.takeOverDemo === true);
    await releaseFromDemoAccounts({ unixLogin: patch.unixLogin });
    const owner = await db().user.findUnique({ where: { unixLogin: patch.unixLogin }, select: { id: true } });
    if (owner && owner.id !== id) {
      throw new AppError("conflict", `The Unix login ${patch.unixLogin} belongs to someone else`, { unixLogin: "belongs to someone else" });
    }
  }
  if (patch.password !== undefined) {
    await resetPassword(id, { password: patch.password, mustChange: patch.mustChangePassword ?? true }, actor.user.id);
  }
  const row = await db().$transaction(async (tx) => {
    // Counted in the transaction, after the others that take away an admin: the rule holds under races.
    if (losesAdmin) {
      await lockAdminChanges(tx);
      if ((await otherActiveAdmins(tx, id)) === 0) throw new AppError("conflict", "This is the last admin: make someone else admin first");
    }
    for (const entry of auditEntriesOf(current, patch)) await writeAudit(tx, { actorId: actor.user.id, entityType: "user", entityId: id, ...entry });
    const updated = await tx.user.update({
      where: { id },
      data: {
        ...(patch.role ? { role: patch.role } : {}),
        ...(patch.name ? { name: patch.name } : {}),
        ...(patch.directoryLink !== undefined ? { directoryLink: patch.directoryLink } : {}),
        ...(patch.unixLogin !== undefined ? { unixLogin: patch.unixLogin } : {}),
        ...(patch.disabled !== undefined
          ? { banned: patch.disabled, banReason: patch.disabled ? `disabled by ${actor.user.username}` : null }
          : {}),
      },
      select: userSelect,
    });
    if (patch.disabled) await tx.session.deleteMany({ where: { userId: id } });
    return updated;
  });
  // Their open live pages lose the feed at once; a role change reconnects them in the scope of the new role.
  if (patch.disabled || (patch.role !== undefined && patch.role !== toRole(current.role))) {
    disconnectLivePrincipal({ kind: "user", id });
  }
  return summarize(row);
}
