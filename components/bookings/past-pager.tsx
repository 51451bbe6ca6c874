import Link from "next/link";
import { controlClass } from "@/components/forms/field";
import { buttonClass } from "@/components/ui/button-styles";

interface PastPagerProps {
  page: number;
  pages: number;
  total: number;
  search: string;
}

/** Past bookings, newest first, a page at a time, with a filter on purpose or host: a plain GET form, so the address holds the view. */
export function PastPager({ page, pages, total, search }: PastPagerProps) {
  const href = (to: number) => {
    const params = new URLSearchParams({ ...(to > 1 ? { past: String(to) } : {}), ...(search ? { q: search } : {}) }).toString();
    return `/reservations${params ? `?${params}` : ""}`;
  };
  return (
    <nav aria-label="Past bookings" className="flex flex-wrap items-center gap-3 text-sm">
      <form method="get" action="/reservations" className="flex items-center gap-2">
        <label htmlFor="past-filter" className="text-slate-600 dark:text-slate-300">
          Filter past
        </label>
        <input id="past-filter" type="search" name="q" defaultValue={search} maxLength={100} placeholder="purpose or host" className={`${controlClass} h-9 w-48 py-1`} />
        <button type="submit" className={buttonClass("secondary", "sm")}>
          Filter
        </button>
      </form>
      <p data-testid="past-page" className="ml-auto text-slate-600 dark:text-slate-300">
        {total} past{search ? ` matching “${search}”` : ""} · page {Math.min(page, pages)} of {pages}
      </p>
      {page > 1 && (
        <Link href={href(page - 1)} className={buttonClass("secondary", "sm")}>
          Newer
        </Link>
      )}
      {page < pages && (
        <Link href={href(page + 1)} className={buttonClass("secondary", "sm")}>
          Older
        </Link>
      )}
    </nav>
  );
}
