"use client";

import Link from "next/link";
import type { CurrentUser } from "@/components/auth/current-user";
import { ACCOUNT_LINKS, isActive } from "@/components/nav/nav-links";
import { Chevron, dropdownPanel, focusRing, menuItemClass } from "@/components/nav/nav-styles";
import { useDisclosure } from "@/components/nav/use-disclosure";
import { useSignOut } from "@/components/nav/use-sign-out";
import { Badge } from "@/components/ui/badge";
import { nameInitials } from "@/lib/format/person-name";


export function Avatar({ name }: { name: string }) {
  return (
    <span aria-hidden className="inline-flex size-7 shrink-0 items-center justify-center rounded-full bg-sky-100 text-xs font-semibold text-sky-800 dark:bg-sky-900 dark:text-sky-100">
      {nameInitials(name)}
    </span>
  );
}

/** Who is signed in, their account pages and the way out. */
export function UserMenu({ user, pathname }: { user: CurrentUser; pathname: string }) {
  const { open, close, rootRef, buttonProps, panelProps } = useDisclosure();
  const { signOut, pending, error } = useSignOut();

  return (
    <div ref={rootRef} className="relative">
      <button
        {...buttonProps}
        aria-label={`Account: ${user.name}`}
        className={`inline-flex max-w-56 items-center gap-2 rounded-full py-1 pr-2 pl-1 text-sm font-medium text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800 ${focusRing}`}
      >
        <Avatar name={user.name} />
        <span className="truncate">{user.name}</span>
        <Chevron open={open} />
      </button>
      <div {...panelProps} className={`${dropdownPanel} right-0 w-64`}>
        <div className="border-b border-slate-200 px-3 pt-1.5 pb-2.5 dark:border-slate-700">
          <p className="truncate text-sm font-medium">{user.name}</p>
          <p className="flex items-center gap-2 text-xs text-slate-500 dark:text-slate-400">
            {user.name !== user.username && <span className="truncate">@{user.username}</span>}
            {user.can.administer && <Badge tone="busy">admin</Badge>}
          </p>
        </div>
        <ul className="pt-1.5">
          {ACCOUNT_LINKS.map((link) => {
            const active = isActive(link, pathname);
            return (
              <li key={link.href}>
                <Link href={link.href} onClick={close} aria-current={active ? "page" : undefined} className={menuItemClass(active)}>
                  {link.label}
                </Link>
              </li>
            );
          })}
          <li>
            <button type="button" onClick={signOut} disabled={pending} className={`${menuItemClass(false)} disabled:opacity-60`}>
              {pending ? "Signing out…" : "Sign out"}
            </button>
          </li>
        </ul>
        {error && (
          <p role="alert" className="mx-1.5 mt-1 rounded-md bg-red-50 px-2 py-1.5 text-xs text-red-800 dark:bg-red-950 dark:text-red-200">
            {error}
          </p>
        )}
      </div>
    </div>
  );
}
