import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { safeNext } from "@/lib/safe-next";
import { getPageUser } from "@/server/auth/session";
import { countUsers } from "@/server/auth/users";
import { signInOptions, ssoErrorMessage } from "@/server/sso/sign-in-options";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

interface LoginPageProps {
  searchParams: Promise<{ next?: string; error?: string }>;
}

export default async function LoginPage({ searchParams }: LoginPageProps) {
  const params = await searchParams;
  const next = safeNext(params.next);
  if (await getPageUser()) redirect(next);
  const options = signInOptions();
  // With single sign-on the first person may come from the directory (an admin group makes them admin).
  const canSignIn = options.oidcName !== null || options.directoryPasswords || (await countUsers()) > 0;

  return (
    <main className="mx-auto flex min-h-screen max-w-sm flex-col justify-center px-4 py-12">
      <h1 className="mb-1 text-2xl font-semibold tracking-tight">gpudesk</h1>
      <p className="mb-8 text-sm text-slate-600 dark:text-slate-400">Who is on which GPU, live.</p>
      {canSignIn ? (
        <SignInForm next={next} options={options} ssoError={ssoErrorMessage(params.error)} />
      ) : (
        <section aria-labelledby="first-admin" className="rounded-lg border border-amber-300 bg-amber-50 p-5 text-sm dark:border-amber-700 dark:bg-amber-950">
          <h2 id="first-admin" className="mb-2 text-base font-semibold">No accounts yet</h2>
          <p className="mb-3">Create the first admin on the server, in the gpudesk folder:</p>
          {/* Wrapped, never scrolled: the whole command shows on a phone and in the narrow card. */}
          <pre className="rounded bg-slate-900 p-3 break-words whitespace-pre-wrap text-slate-100">
            <code>npx gpudesk user add YOUR-NAME --admin</code>
          </pre>
          <p className="mt-3">It asks for a password. Then reload this page and sign in.</p>
        </section>
      )}
    </main>
  );
}
