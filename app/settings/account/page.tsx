import type { Metadata } from "next";
import { PasswordForm } from "@/components/settings/password-form";
import { TimeZoneForm } from "@/components/settings/time-zone-form";
import { PageShell } from "@/app/_components/page-shell";
import { ACCOUNT_PATH, requirePageUser } from "@/server/auth/session";
import { readTimeZone } from "@/server/auth/time-zone-setting";
import { isAdminRole } from "@/lib/domain/roles";

export const metadata: Metadata = { title: "Account" };
export const dynamic = "force-dynamic";

export default function AccountPage() {
  return (
    <PageShell returnTo={ACCOUNT_PATH} width="narrow" title="Account" description="Your sign-in name, password and time zone.">
      <Account />
    </PageShell>
  );
}

async function Account() {
  const { user } = await requirePageUser(ACCOUNT_PATH);
  return (
    <div className="space-y-6">
      <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-2 rounded-xl border border-slate-200 bg-white p-4 text-sm sm:p-5 dark:border-slate-800 dark:bg-slate-900">
        <dt className="text-slate-500 dark:text-slate-400">Username</dt>
        <dd className="font-mono">{user.username}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Role</dt>
        <dd>{isAdminRole(user.role) ? "Admin" : "Member"}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Unix login</dt>
        <dd className="font-mono">{user.unixLogin ?? "none"}</dd>
      </dl>
      <TimeZoneForm initial={await readTimeZone(user.id)} />
      <PasswordForm required={user.mustChangePassword === true} />
    </div>
  );
}
