import Link from "next/link";

export function GpuNotFound({ uuid }: { uuid: string }) {
  return (
    <section
      aria-labelledby="gpu-not-found-title"
      data-testid="gpu-not-found"
      className="mx-auto max-w-xl rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center dark:border-slate-700 dark:bg-slate-900"
    >
      <h1 id="gpu-not-found-title" className="text-xl font-semibold">
        No such GPU
      </h1>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-300">
        No host in the fleet reports a GPU with UUID <code className="font-mono break-all">{uuid}</code>. It may have been
        removed, or its host replaced.
      </p>
      <Link
        href="/"
        className="mt-6 inline-flex items-center gap-1 rounded-lg bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500 dark:bg-slate-100 dark:text-slate-900 dark:hover:bg-white"
      >
        ← Back to the fleet
      </Link>
    </section>
  );
}
