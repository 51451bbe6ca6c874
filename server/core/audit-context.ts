import { AsyncLocalStorage } from "node:async_hooks";

/** Where the action being done right now came from: the client's address, and through what. */
export interface AuditOrigin {
  ip: string | null;
  via: "web" | "cli" | "system";
  /** The person the request was authenticated as, once the guard knows (server/auth/guard.ts). */
  actorId?: string | null;
}

const shared = globalThis as unknown as { __gpudeskAuditOrigin?: AsyncLocalStorage<AuditOrigin> };
// One store for the custom server and Next's bundles (each bundle would otherwise have its own).
const storage = (shared.__gpudeskAuditOrigin ??= new AsyncLocalStorage<AuditOrigin>());

/**
 * Runs `work` with its origin known to every audit entry written inside it,
 * however deep: the API wrapper sets the request's address, the command line
 * sets "cli". Outside any, entries say "system".
 */
export function withAuditOrigin<T>(origin: AuditOrigin, work: () => T): T {
  return storage.run({ ...origin }, work);
}

/** The guard names who is asking, so that entries written for this request default to them. */
export function noteAuditActor(actorId: string): void {
  const store = storage.getStore();
  if (store) store.actorId = actorId;
}

export function currentAuditOrigin(): AuditOrigin {
  return storage.getStore() ?? { ip: null, via: "system" };
}
