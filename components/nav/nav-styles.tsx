/** Class names shared by the header's bar, its drop-downs and the phone menu. */
export const focusRing = "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500";

export function barLinkClass(active: boolean): string {
  return `rounded-md px-3 py-1.5 text-sm font-medium whitespace-nowrap ${focusRing} ${
    active
      ? "bg-slate-100 text-slate-900 dark:bg-slate-800 dark:text-white"
      : "text-slate-600 hover:bg-slate-100 hover:text-slate-900 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white"
  }`;
}

export function menuItemClass(active: boolean): string {
  return `flex w-full items-center rounded-md px-3 py-2 text-left text-sm ${focusRing} ${
    active
      ? "bg-sky-50 font-medium text-sky-800 dark:bg-sky-950 dark:text-sky-200"
      : "text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800"
  }`;
}

export const dropdownPanel =
  "absolute top-full z-30 mt-2 min-w-48 rounded-lg border border-slate-200 bg-white p-1.5 shadow-lg dark:border-slate-700 dark:bg-slate-900";

export function Chevron({ open }: { open: boolean }) {
  return (
    <svg aria-hidden viewBox="0 0 20 20" className={`size-4 transition-transform motion-reduce:transition-none ${open ? "rotate-180" : ""}`} fill="currentColor">
      <path fillRule="evenodd" d="M5.2 7.7a.75.75 0 0 1 1.06.04L10 11.7l3.74-3.96a.75.75 0 1 1 1.1 1.02l-4.3 4.55a.75.75 0 0 1-1.1 0l-4.3-4.55a.75.75 0 0 1 .06-1.06Z" clipRule="evenodd" />
    </svg>
  );
}
