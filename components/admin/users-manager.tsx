"use client";

import { useState } from "react";
import { useCurrentUser } from "@/components/auth/current-user";
import { UserCreateForm, type UserRow as User } from "@/components/admin/user-create-form";
import { UserRow } from "@/components/admin/user-row";
import * as t from "@/components/ui/table-styles";
import { isAdminRole } from "@/lib/domain/roles";

function byUsername(a: User, b: User): number {
  return a.username.localeCompare(b.username);
}

/** Everyone with an account, and the form that adds one. */
/** `directory`: OIDC or LDAP is set up, so accounts can be linked to the directory. */
export function UsersManager({ initialUsers, directory }: { initialUsers: User[]; directory: boolean }) {
  const me = useCurrentUser();
  const [users, setUsers] = useState(initialUsers);
  const admins = users.filter((user) => isAdminRole(user.role) && !user.disabled).length;

  return (
    <div className="space-y-6">
      <UserCreateForm onCreated={(user) => setUsers((current) => [...current.filter((row) => row.id !== user.id), user].sort(byUsername))} />

      <section aria-labelledby="people-heading" className="space-y-3">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 id="people-heading" className="text-base font-semibold">
            People
          </h2>
          <p className="text-sm text-slate-500 dark:text-slate-400">
            {users.length} {users.length === 1 ? "account" : "accounts"}, {admins} active {admins === 1 ? "admin" : "admins"}
          </p>
        </div>
        <div className={t.tableCard}>
          <table className={`${t.table} min-w-[44rem]`} aria-labelledby="people-heading">
            <thead>
              <tr className={t.headRow}>
                <th scope="col" className={t.th}>Username</th>
                <th scope="col" className={t.th}>Name</th>
                <th scope="col" className={t.th}>Role</th>
                <th scope="col" className={t.th}>Unix login</th>
                <th scope="col" className={t.th}>Status</th>
                <th scope="col" className={t.th}><span className="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {users.map((user) => (
                <UserRow
                  key={user.id}
                  user={user}
                  isSelf={user.id === me.id}
                  directory={directory}
                  onUpdated={(updated) => setUsers((current) => current.map((row) => (row.id === updated.id ? updated : row)))}
                />
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </div>
  );
}
