/** Where the header leads. One list for the wide bar and the phone menu, so the two never drift apart. */
export interface NavLink {
  href: string;
  label: string;
  /** Other paths that belong to this entry (a GPU's page belongs to the fleet). */
  alsoActiveUnder?: string[];
}

export const MAIN_LINKS: NavLink[] = [
  { href: "/", label: "Fleet", alsoActiveUnder: ["/gpus/"] },
  { href: "/reserve", label: "Reserve" },
  { href: "/reservations", label: "My bookings" },
  { href: "/queue", label: "Queue" },
  { href: "/schedule", label: "Schedule" },
  { href: "/alerts", label: "Alerts" },
  { href: "/usage", label: "Usage" },
];

export const ADMIN_LINKS: NavLink[] = [
  { href: "/admin/users", label: "Users" },
  { href: "/admin/hosts", label: "Hosts" },
  { href: "/admin/displays", label: "Displays" },
  { href: "/admin/policies", label: "Policies" },
  { href: "/admin/teams", label: "Teams" },
  { href: "/admin/usage", label: "Fleet usage" },
  { href: "/admin/notifications", label: "Notifications" },
  { href: "/admin/enforcement", label: "Enforcement" },
  { href: "/admin/audit", label: "Audit" },
];

export const ACCOUNT_LINKS: NavLink[] = [
  { href: "/settings/account", label: "Account" },
  { href: "/settings/notifications", label: "Notifications" },
  { href: "/settings/tokens", label: "API tokens" },
  { href: "/alerts/notifications", label: "My alert webhooks" },
];

function under(pathname: string, prefix: string): boolean {
  if (prefix === "/") return pathname === "/";
  const base = prefix.endsWith("/") ? prefix.slice(0, -1) : prefix;
  return pathname === base || pathname.startsWith(`${base}/`);
}

export function isActive(link: NavLink, pathname: string): boolean {
  return under(pathname, link.href) || (link.alsoActiveUnder ?? []).some((prefix) => under(pathname, prefix));
}
