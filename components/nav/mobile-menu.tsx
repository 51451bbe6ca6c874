"use client";

import Link from "next/link";
import type { CurrentUser } from "@/components/auth/current-user";
import { ACCOUNT_LINKS, ADMIN_LINKS, MAIN_LINKS, isActive, type NavLink } from "@/components/nav/nav-links";
import { focusRing, menuItemClass } from "@/components/nav/nav-styles";
import { Avatar } from "@/components/nav/user-menu";
import { useDisclosure } from "@/components/nav/use-disclosure";
import { useSignOut } from "@/components/nav/use-sign-out";

/** Everything the wide bar shows, folded behind one button below the `lg` breakpoint. */
export function MobileMenu({ user, pathname }: { user: CurrentUser; pathname: string }) {
  const { open, close, rootRef, buttonProps, panelProps } = useDisclosure();
  const { signOut, pending, error } = useSignOut();

  return (
    <div ref={rootRef} className="lg:hidden">
      <button
        {...buttonProps}
        aria-label="Menu"
        className={`inline-flex size-9 items-center justify-center rounded-lg border border-slate-200 text-slate-600 hover:bg-slate-100 dark:border-slate-700 dark:text-slate-300 dark:hover:bg-slate-800 ${focusRing}`}
      >
        <svg aria-hidden viewBox="0 0 24 24" className="size-5" fill="none" stroke="currentColor" strokeWidth={1.8} strokeLinecap="round">
          {open ? <path d="M6 6l12 12M18 6L6 18" /> : <path d="M4 7h16M4 12h16M4 17h16" />}
        </svg>
      </button>
      <div
        {...panelProps}
        className="absolute inset-x-0 top-full max-h-[calc(100dvh-3.5rem)] overflow-y-auto border-b border-slate-200 bg-white px-4 pt-2 pb-4 shadow-lg dark:border-slate-800 dark:bg-slate-900"
      >
        <nav aria-label="Main">
          <LinkList links={MAIN_LINKS} pathname={pathname} onNavigate={close} />
          {user.can.administer && (
            <>
              <SectionTitle>Admin</SectionTitle>
              <LinkList links={ADMIN_LINKS} pathname={pathname} onNavigate={close} />
            </>
          )}
        </nav>
        <div className="mt-3 border-t border-slate-200 pt-3 dark:border-slate-700">
          <div className="mb-2 flex items-center gap-3 px-3">
            <Avatar name={user.name} />
            <div className="min-w-0">
              <p className="truncate text-sm font-medium">{user.name}</p>
              <p className="truncate text-xs text-slate-500 dark:text-slate-400">
                @{user.username}
                {user.can.administer ? " · admin" : ""}
              </p>
            </div>
          </div>
          <LinkList links={ACCOUNT_LINKS} pathname={pathname} onNavigate={close} />
          <button type="button" onClick={signOut} disabled={pending} className={`${menuItemClass(false)} py-2.5 disabled:opacity-60`}>
            {pending ? "Signing out…" : "Sign out"}
          </button>
          {error && (
            <p role="alert" className="mt-1 rounded-md bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
              {error}
            </p>
          )}
        </div>
      </div>
    </div>
  );
}

function SectionTitle({ children }: { children: React.ReactNode }) {
  return <p className="mt-3 mb-1 px-3 text-xs font-semibold tracking-wide text-slate-500 uppercase dark:text-slate-400">{children}</p>;
}

function LinkList({ links, pathname, onNavigate }: { links: NavLink[]; pathname: string; onNavigate: () => void }) {
  return (
    <ul className="space-y-0.5">
      {links.map((link) => {
        const active = isActive(link, pathname);
        return (
          <li key={link.href}>
            <Link href={link.href} onClick={onNavigate} aria-current={active ? "page" : undefined} className={`${menuItemClass(active)} py-2.5`}>
              {link.label}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
