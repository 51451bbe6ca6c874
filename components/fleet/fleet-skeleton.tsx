/** The fleet's shape before the first snapshot: two hosts of four cards, so the page does not jump. */
export function FleetSkeleton() {
  return (
    <div aria-busy="true" aria-label="Loading the fleet" className="space-y-8">
      {[0, 1].map((host) => (
        <div key={host} className="animate-pulse motion-reduce:animate-none">
          <div className="mb-3 flex items-center gap-4">
            <div className="h-6 w-32 rounded bg-slate-200 dark:bg-slate-800" />
            <div className="h-4 w-40 rounded bg-slate-200 dark:bg-slate-800" />
          </div>
          <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4">
            {[0, 1, 2, 3].map((card) => (
              <div key={card} className="h-64 rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
                <div className="h-5 w-16 rounded bg-slate-200 dark:bg-slate-800" />
                <div className="mt-2 h-3 w-28 rounded bg-slate-100 dark:bg-slate-800/70" />
                <div className="mt-6 h-8 w-full rounded bg-slate-100 dark:bg-slate-800/70" />
                <div className="mt-5 h-2 w-full rounded-full bg-slate-200 dark:bg-slate-800" />
                <div className="mt-5 h-4 w-3/4 rounded bg-slate-100 dark:bg-slate-800/70" />
              </div>
            ))}
          </div>
        </div>
      ))}
      <span className="sr-only">Loading the fleet…</span>
    </div>
  );
}
