/** Look of the admin and settings tables: a card with a header row and quiet row lines. */
// `relative`: absolutely placed children (the sr-only header labels) must stay inside the scrolling card, or a phone page scrolls sideways.
export const tableCard = "relative overflow-x-auto rounded-xl border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900";
export const table = "w-full text-left text-sm";
export const th = "px-4 py-2.5 text-xs font-semibold tracking-wide text-slate-500 uppercase dark:text-slate-400";
export const td = "px-4 py-3 align-middle";
export const headRow = "border-b border-slate-200 bg-slate-50 dark:border-slate-800 dark:bg-slate-950/40";
export const bodyRow = "border-b border-slate-100 last:border-0 dark:border-slate-800";
/** A secondary column: shown from `sm` up; below that its value is folded into the first cell. */
export const wideOnly = "hidden sm:table-cell";
export const narrowOnly = "sm:hidden";
