import { installLine } from "@/lib/install-line";

/**
 * No host has reported yet: say how to connect one. The server URL is this
 * page's origin, which is right for most setups behind no proxy.
 */
export function EmptyFleet({ serverUrl }: { serverUrl: string }) {
  return (
    <section
      aria-labelledby="empty-fleet-title"
      className="mx-auto max-w-2xl rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center dark:border-slate-700 dark:bg-slate-900"
    >
      <svg aria-hidden viewBox="0 0 24 24" className="mx-auto size-10 text-slate-400" fill="none" stroke="currentColor" strokeWidth={1.5}>
        <rect x="3" y="4" width="18" height="7" rx="1.5" />
        <rect x="3" y="13" width="18" height="7" rx="1.5" />
        <path d="M7 7.5h.01M7 16.5h.01" strokeLinecap="round" strokeWidth={2.5} />
      </svg>
      <h2 id="empty-fleet-title" className="mt-4 text-lg font-semibold">
        No GPU hosts yet
      </h2>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-300">
        Install the agent on each GPU server (as root; Node.js 18 or newer). It reads nvidia-smi and reports here within seconds.
      </p>
      <pre className="mt-5 rounded-lg bg-slate-900 px-4 py-3 text-left text-sm text-slate-100 dark:bg-black">
        <code className="break-all whitespace-pre-wrap">
          {installLine(serverUrl)}
        </code>
      </pre>
      <p className="mt-3 text-xs text-slate-500 dark:text-slate-400">
        It asks for the agent token of that host (Admin → Hosts, or <code>gpudesk host add NAME</code>). Hosts appear here as soon as their agent connects.
      </p>
    </section>
  );
}
