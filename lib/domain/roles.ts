/**
 * Whether a role is the admin's: for the role's own bookkeeping (the last
 * admin, a stored role read back, a count of admins), never to decide what
 * someone may do: that is a `can.*` of server/access/permissions.ts, and the
 * pages read its answers (`GET /api/v1/me`'s `can`).
 */
export function isAdminRole(role: string | null | undefined): boolean {
  return role === "admin";
}
