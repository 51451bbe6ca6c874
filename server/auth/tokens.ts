import { randomBytes } from "node:crypto";
import { z } from "zod";
import { text } from "@/lib/domain/plain-text";
import type { DisplayPrincipal, Role, UserPrincipal } from "@/server/access/principal";
import { writeAudit } from "@/server/access/audit-log";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import { createUnlessTaken } from "@/server/core/unique-violation";
import { disconnectLivePrincipal } from "@/server/access/live-revocation";
import { hashToken } from "@/server/hosts/host-registry";
import { can } from "@/server/access/permissions";
import { isAdminRole } from "@/lib/domain/roles";

export const PERSONAL_TOKEN_PREFIX = "gpd_pat_";
export const DISPLAY_TOKEN_PREFIX = "gpd_disp_";
/** last-used times are written at most this often per token, not on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

export const tokenLabelSchema = text().trim().min(1, "is required").max(100, "is at most 100 characters");
export const displayNameSchema = text()
  .trim()
  .min(1, "is required")
  .max(64, "is at most 64 characters")
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, "may contain letters, digits, spaces, '.', '_' and '-'");

/** POST /api/v1/displays. */
export const createDisplaySchema = z.object({ name: displayNameSchema });
/** PATCH /api/v1/displays/[id]: what an admin may change on a display. */
export const updateDisplaySchema = z.object({ namesUnbookedRunner: z.boolean() }).strict();
/** POST /api/v1/tokens. */
export const createTokenSchema = z.object({ label: tokenLabelSchema });

function newToken(prefix: string): string {
  return prefix + randomBytes(24).toString("base64url");
}

function shownPrefix(token: string, prefix: string): string {
  return token.slice(0, prefix.length + 4);
}

export interface TokenSummary {
  id: string;
  label: string;
  tokenPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const tokenSelect = { id: true, label: true, tokenPrefix: true, createdAt: true, lastUsedAt: true, revokedAt: true } as const;

/** Creates a personal API token; the token itself is returned this once and only its hash is kept. */
export async function createPersonalToken(userId: string, rawLabel: string): Promise<{ token: string; summary: TokenSummary }> {
  const label = tokenLabelSchema.parse(rawLabel);
  const token = newToken(PERSONAL_TOKEN_PREFIX);
  const summary = await db().$transaction(async (tx) => {
    const created = await tx.apiToken.create({
      data: { userId, label, tokenHash: hashToken(token), tokenPrefix: shownPrefix(token, PERSONAL_TOKEN_PREFIX) },
      select: tokenSelect,
    });
    await writeAudit(tx, { action: "token.create", entityType: "token", entityId: created.id, after: { owner: userId, label, prefix: created.tokenPrefix } });
    return created;
  });
  return { token, summary };
}

export async function listPersonalTokens(userId: string): Promise<TokenSummary[]> {
  return db().apiToken.findMany({ where: { userId }, select: tokenSelect, orderBy: { createdAt: "desc" } });
}

/** Revokes at once: the next request with it is refused. Only its owner or an admin may. */
export async function revokePersonalToken(tokenId: string, actor: UserPrincipal): Promise<void> {
  const row = await db().apiToken.findUnique({ where: { id: tokenId }, select: { userId: true, revokedAt: true } });
  if (!row || !can.revokeToken(actor.user, row)) {
    throw new AppError("not_found", "No such token");
  }
  if (!row.revokedAt) {
    await db().$transaction(async (tx) => {
      const revoked = await tx.apiToken.update({ where: { id: tokenId }, data: { revokedAt: new Date() }, select: { label: true, tokenPrefix: true } });
      await writeAudit(tx, {
        actorId: actor.user.id,
        action: "token.revoke",
        entityType: "token",
        entityId: tokenId,
        before: { owner: row.userId, label: revoked.label, prefix: revoked.tokenPrefix, revoked: false },
        after: { revoked: true },
      });
    });
  }
  // Its open /live sockets too, on every instance: the feed ends with the token.
  disconnectLivePrincipal({ kind: "token", id: tokenId });
}

export interface DisplaySummary {
  id: string;
  name: string;
  tokenPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** The wall names who runs on a busy GPU without a booking (display names only); off by default. */
  namesUnbookedRunner: boolean;
}

const displaySelect = { id: true, name: true, tokenPrefix: true, createdAt: true, lastUsedAt: true, revokedAt: true, namesUnbookedRunner: true } as const;

export async function createDisplay(rawName: string): Promise<{ token: string; display: DisplaySummary }> {
  const name = displayNameSchema.parse(rawName);
  const taken = () => new AppError("conflict", `A display named ${name} already exists`, { name: "is taken" });
  if (await db().display.findUnique({ where: { name }, select: { id: true } })) throw taken();
  const token = newToken(DISPLAY_TOKEN_PREFIX);
  const display = await createUnlessTaken(
    () =>
      db().$transaction(async (tx) => {
        const created = await tx.display.create({
          data: { name, tokenHash: hashToken(token), tokenPrefix: shownPrefix(token, DISPLAY_TOKEN_PREFIX) },
          select: displaySelect,
        });
        await writeAudit(tx, { action: "display.create", entityType: "display", entityId: created.id, after: { name, prefix: created.tokenPrefix } });
        return created;
      }),
    taken,
  );
  return { token, display };
}

export async function listDisplays(): Promise<DisplaySummary[]> {
  return db().display.findMany({ select: displaySelect, orderBy: { name: "asc" } });
}

/**
 * Changes a display's settings, audited. Its open live sockets close, so
 * that the screen reconnects into the feed its settings allow now (the
 * reduced view is chosen per connection, server/live/live-endpoint.ts).
 */
export async function updateDisplay(id: string, change: z.infer<typeof updateDisplaySchema>): Promise<DisplaySummary> {
  const updated = await db().$transaction(async (tx) => {
    const before = await tx.display.findUnique({ where: { id }, select: { namesUnbookedRunner: true } });
    if (!before) throw new AppError("not_found", "No such display");
    const after = await tx.display.update({ where: { id }, data: { namesUnbookedRunner: change.namesUnbookedRunner }, select: displaySelect });
    if (before.namesUnbookedRunner !== after.namesUnbookedRunner) {
      await writeAudit(tx, {
        action: "display.update",
        entityType: "display",
        entityId: id,
        before: { namesUnbookedRunner: before.namesUnbookedRunner },
        after: { namesUnbookedRunner: after.namesUnbookedRunner },
      });
    }
    return after;
  });
  disconnectLivePrincipal({ kind: "display", id });
  return updated;
}

/** Revokes at once: the display's open live sockets close too (server/access/live-revocation.ts). */
export async function revokeDisplay(id: string): Promise<void> {
  const result = await db().$transaction(async (tx) => {
    const changed = await tx.display.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
    if (changed.count > 0) await writeAudit(tx, { action: "display.revoke", entityType: "display", entityId: id, before: { revoked: false }, after: { revoked: true } });
    return changed;
  });
  if (result.count === 0 && !(await db().display.findUnique({ where: { id }, select: { id: true } }))) {
    throw new AppError("not_found", "No such display");
  }
  disconnectLivePrincipal({ kind: "display", id });
}

/**
 * The principal a bearer token stands for, or null for an unknown, revoked
 * or malformed token, or one whose person is disabled.
 */
export async function authenticateToken(token: string): Promise<UserPrincipal | DisplayPrincipal | null> {
  if (token.length > 200) return null;
  const now = new Date();
  if (token.startsWith(PERSONAL_TOKEN_PREFIX)) {
    const row = await db().apiToken.findUnique({
      where: { tokenHash: hashToken(token) },
      select: {
        id: true,
        revokedAt: true,
        lastUsedAt: true,
        user: { select: { id: true, username: true, name: true, role: true, unixLogin: true, banned: true, mustChangePassword: true } },
      },
    });
    if (!row || row.revokedAt || row.user.banned) return null;
    if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      await db().apiToken.update({ where: { id: row.id }, data: { lastUsedAt: now } });
    }
    const { user } = row;
    return {
      kind: "user",
      via: "token",
      tokenId: row.id,
      user: {
        id: user.id,
        username: user.username ?? user.name,
        name: user.name,
        role: toRole(user.role),
        unixLogin: user.unixLogin,
        // A token follows its owner's temporary-password state as a session does (requireUser, /live).
        ...(user.mustChangePassword ? { mustChangePassword: true } : {}),
      },
    };
  }
  if (token.startsWith(DISPLAY_TOKEN_PREFIX)) {
    const row = await db().display.findUnique({
      where: { tokenHash: hashToken(token) },
      select: { id: true, name: true, revokedAt: true, lastUsedAt: true, namesUnbookedRunner: true },
    });
    if (!row || row.revokedAt) return null;
    if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      await db().display.update({ where: { id: row.id }, data: { lastUsedAt: now } });
    }
    return { kind: "display", display: { id: row.id, name: row.name, namesUnbookedRunner: row.namesUnbookedRunner } };
  }
  return null;
}

export function toRole(role: string | null | undefined): Role {
  return isAdminRole(role) ? "admin" : "member";
}
