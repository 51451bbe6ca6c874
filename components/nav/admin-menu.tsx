"use client";

import Link from "next/link";
import { ADMIN_LINKS, isActive } from "@/components/nav/nav-links";
import { Chevron, barLinkClass, dropdownPanel, menuItemClass } from "@/components/nav/nav-styles";
import { useDisclosure } from "@/components/nav/use-disclosure";

/** The admin pages, behind one button in the wide bar. */
export function AdminMenu({ pathname }: { pathname: string }) {
  const { open, close, rootRef, buttonProps, panelProps } = useDisclosure();
  const inAdmin = ADMIN_LINKS.some((link) => isActive(link, pathname));

  return (
    <div ref={rootRef} className="relative">
      <button {...buttonProps} className={`${barLinkClass(inAdmin)} inline-flex items-center gap-1`}>
        Admin
        <Chevron open={open} />
      </button>
      <ul {...panelProps} className={`${dropdownPanel} left-0`}>
        {ADMIN_LINKS.map((link) => {
          const active = isActive(link, pathname);
          return (
            <li key={link.href}>
              <Link href={link.href} onClick={close} aria-current={active ? "page" : undefined} className={menuItemClass(active)}>
                {link.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
