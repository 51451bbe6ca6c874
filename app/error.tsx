"use client";

import { useEffect } from "react";

/** A render error in a page: keep the shell, offer a retry instead of a blank tab on the wall. */
export default function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);

  return (
    <main className="mx-auto max-w-xl px-6 py-20 text-center">
      <h1 className="text-2xl font-semibold tracking-tight">Something went wrong</h1>
      <p className="mt-2 text-slate-600 dark:text-slate-300">
        This page failed to show.{error.digest ? ` Reference ${error.digest}.` : ""}
      </p>
      <button
        type="button"
        onClick={reset}
        className="mt-6 rounded-lg bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500 dark:bg-slate-100 dark:text-slate-900"
      >
        Try again
      </button>
    </main>
  );
}
