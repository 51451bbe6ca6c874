"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ConnectionStatus } from "@/lib/live/live-fleet-state";
import { AlertsBadge } from "@/components/alerts/alerts-badge";
import { GrantToasts } from "@/components/waitlist/grant-toasts";
import { IdleNotices } from "@/components/idle-release/idle-notices";
import { PersonNoticeToasts } from "@/components/waitlist/person-notice-toasts";
import { useOptionalCurrentUser } from "@/components/auth/current-user";
import { AdminMenu } from "@/components/nav/admin-menu";
import { MobileMenu } from "@/components/nav/mobile-menu";
import { MAIN_LINKS, isActive } from "@/components/nav/nav-links";
import { barLinkClass, focusRing } from "@/components/nav/nav-styles";
import { UserMenu } from "@/components/nav/user-menu";
import { Badge } from "@/components/ui/badge";
import { ConnectionIndicator } from "@/components/ui/connection-indicator";
import { ThemeToggle } from "@/components/ui/theme-toggle";
import { useFirstScreenLive } from "@/components/live/use-first-screen";

interface AppHeaderProps {
  /** Live pages pass their socket's state; plain pages leave it out and show no indicator. */
  status?: ConnectionStatus;
  /** True when the fleet on screen is generated, not read from nvidia-smi. */
  simulated?: boolean;
}

/**
 * Product bar of every signed-in page: where you can go, whether what you
 * see is real and live, and who you are. The navigation needs a
 * CurrentUserProvider above it (PageShell gives one); without one the bar
 * shows the product name only.
 */
export function AppHeader({ status, simulated = false }: AppHeaderProps) {
  const user = useOptionalCurrentUser();
  const pathname = usePathname() ?? "/";
  // The links prefetch their pages once the first screen is live: at hydration those requests held the fleet's snapshot back.
  const prefetch = useFirstScreenLive() ? undefined : false;

  return (
    <header className="sticky top-0 z-20 border-b border-slate-200 bg-white/85 backdrop-blur dark:border-slate-800 dark:bg-slate-900/85">
      <div className="relative mx-auto flex h-14 max-w-screen-2xl items-center gap-3 px-4 sm:px-6">
        <Link href="/" prefetch={prefetch} className={`flex shrink-0 items-center gap-2 rounded font-semibold tracking-tight ${focusRing}`}>
          <LogoMark />
          <span className="text-lg">gpudesk</span>
        </Link>
        {simulated && (
          <Badge tone="warn" title="No nvidia-smi on the server: these GPUs are generated">
            {/* One flex item, so the space before "fleet" survives. */}
            <span>
              Simulated<span className="hidden sm:inline"> fleet</span>
            </span>
          </Badge>
        )}
        {user && (
          <nav aria-label="Main" className="ml-4 hidden items-center gap-1 lg:flex">
            {MAIN_LINKS.map((link) => {
              const active = isActive(link, pathname);
              return (
                <Link key={link.href} href={link.href} prefetch={prefetch} aria-current={active ? "page" : undefined} className={barLinkClass(active)}>
                  {link.label}
                </Link>
              );
            })}
            {user.can.administer && <AdminMenu pathname={pathname} />}
          </nav>
        )}
        <div className="ml-auto flex items-center gap-2 sm:gap-3">
          {status && <ConnectionIndicator status={status} />}
          {user && <AlertsBadge />}
          {user && <GrantToasts userId={user.id} />}
          {user && <IdleNotices userId={user.id} />}
          {user && <PersonNoticeToasts />}
          <ThemeToggle />
          {user && (
            <>
              <div className="hidden lg:block">
                <UserMenu user={user} pathname={pathname} />
              </div>
              <MobileMenu user={user} pathname={pathname} />
            </>
          )}
        </div>
      </div>
    </header>
  );
}

function LogoMark() {
  return (
    <svg aria-hidden viewBox="0 0 24 24" className="size-6 text-busy" fill="none" stroke="currentColor" strokeWidth={1.8}>
      <rect x="3" y="6" width="18" height="12" rx="2" />
      <path d="M7 10h3v4H7zM14 10h3v4h-3zM6 18v2M10 18v2M14 18v2M18 18v2" />
    </svg>
  );
}
