import type { Metadata } from "next";
import { UsersManager } from "@/components/admin/users-manager";
import { PageShell } from "@/app/_components/page-shell";
import { serializeDates } from "@/lib/api-client";
import { listUsers } from "@/server/auth/users";
import { signInOptions } from "@/server/sso/sign-in-options";

export const metadata: Metadata = { title: "Users" };

export default function UsersPage() {
  return (
    <PageShell
      returnTo="/admin/users"
      admin
      title="Users"
      description="Who may sign in, what they may do, and which Unix login on the hosts is theirs."
    >
      <Users />
    </PageShell>
  );
}

/** Rendered by PageShell only for admins. */
async function Users() {
  const users = await listUsers();
  const options = signInOptions();
  return <UsersManager initialUsers={users.map(serializeDates)} directory={options.oidcName !== null || options.directoryPasswords} />;
}
