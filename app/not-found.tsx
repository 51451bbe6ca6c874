import Link from "next/link";

export default function NotFound() {
  return (
    <main className="mx-auto max-w-xl px-6 py-20 text-center">
      <p className="text-sm font-medium text-slate-500 dark:text-slate-400">404</p>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">Page not found</h1>
      <p className="mt-2 text-slate-600 dark:text-slate-300">There is nothing at this address.</p>
      <Link href="/" className="mt-6 inline-block font-medium text-sky-700 hover:underline dark:text-sky-400">
        ← Back to the fleet
      </Link>
    </main>
  );
}
