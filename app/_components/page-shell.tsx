/**
 * PageShell: the frame of every signed-in page. A server component.
 *
 *   <PageShell returnTo="/reserve" title="Reserve a GPU">…</PageShell>
 *
 * Props
 * - returnTo (string, required): this page's own path (with its query if it
 *   matters). Visitors who are not signed in go to /login and come back here.
 * - admin (boolean, default false): admins only. Members are sent to
 *   "/?forbidden=1", where the fleet page says why.
 * - title (string): the page's <h1>. Leave it out to render your own heading.
 * - description (ReactNode): one line under the title.
 * - actions (ReactNode): buttons or links at the right of the title.
 * - width ("narrow" | "default" | "wide", default "default"): max width of
 *   <main>: narrow 48rem (forms, settings), default 72rem (tables), wide
 *   like the fleet (screen-2xl).
 * - bare (boolean, default false): only the guard and the user. The child
 *   renders <AppHeader status={…} simulated={…} /> and its own <main>
 *   (the live pages do, because their header shows the socket's state).
 * - children: the page. Rendered only after the guard has passed, so an
 *   async server component child may load data only this page's audience
 *   may see.
 *
 * Inside, client components read the person with useCurrentUser() from
 * components/auth/current-user.tsx ({ id, username, name, role, unixLogin }).
 */
import { TimeZoneNote } from "@/components/ui/time-zone-note";
import { CurrentUserProvider, type CurrentUser } from "@/components/auth/current-user";
import { AppHeader } from "@/components/ui/app-header";
import { answersFor } from "@/server/access/permissions";
import { requirePageAdmin, requirePageUser } from "@/server/auth/session";
import { readTimeZone } from "@/server/auth/time-zone-setting";

export interface PageShellProps {
  returnTo: string;
  admin?: boolean;
  title?: string;
  description?: React.ReactNode;
  actions?: React.ReactNode;
  width?: "narrow" | "default" | "wide";
  bare?: boolean;
  children: React.ReactNode;
}

const WIDTH = {
  narrow: "max-w-3xl",
  default: "max-w-6xl",
  wide: "max-w-screen-2xl",
} as const;

export async function PageShell({ returnTo, admin = false, title, description, actions, width = "default", bare = false, children }: PageShellProps) {
  const principal = admin ? await requirePageAdmin(returnTo) : await requirePageUser(returnTo);
  // Field by field, so that nothing the server adds to a principal later reaches the browser unasked.
  const { id, username, name, role, unixLogin } = principal.user;
  const user: CurrentUser = { id, username, name, role, unixLogin, can: answersFor(principal.user) };
  const timeZone = await readTimeZone(id);

  if (bare) {
    return (
      <CurrentUserProvider user={user} timeZone={timeZone}>
        {children}
      </CurrentUserProvider>
    );
  }

  return (
    <CurrentUserProvider user={user} timeZone={timeZone}>
      <a
        href="#main"
        className="sr-only z-50 rounded-md bg-white px-3 py-2 text-sm font-medium shadow focus:not-sr-only focus:fixed focus:top-2 focus:left-2 dark:bg-slate-900"
      >
        Skip to content
      </a>
      <AppHeader />
      <main id="main" className={`mx-auto ${WIDTH[width]} space-y-6 px-4 py-6 sm:px-6 sm:py-8`}>
        {(title || actions) && (
          <div className="flex flex-wrap items-end justify-between gap-x-6 gap-y-3">
            <div className="min-w-0">
              {title && <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>}
              {description && <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{description}</p>}
            </div>
            {actions && <div className="flex flex-wrap items-center gap-2">{actions}</div>}
          </div>
        )}
        {children}
        <TimeZoneNote />
      </main>
    </CurrentUserProvider>
  );
}
