type Tone = "neutral" | "free" | "busy" | "warn" | "danger" | "offline";

const TONES: Record<Tone, string> = {
  neutral: "bg-slate-100 text-slate-700 ring-slate-300 dark:bg-slate-800 dark:text-slate-200 dark:ring-slate-600",
  free: "bg-free/15 text-emerald-800 ring-free/50 dark:text-emerald-300",
  busy: "bg-busy/15 text-sky-800 ring-busy/50 dark:text-sky-300",
  warn: "bg-warn/20 text-amber-900 ring-warn/60 dark:text-amber-200",
  danger: "bg-danger/15 text-red-800 ring-danger/50 dark:text-red-300",
  offline: "bg-offline/15 text-slate-600 ring-offline/50 dark:text-slate-300",
};

export function Badge({ tone = "neutral", children, title }: { tone?: Tone; children: React.ReactNode; title?: string }) {
  return (
    <span
      title={title}
      className={`inline-flex shrink-0 items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${TONES[tone]}`}
    >
      {children}
    </span>
  );
}
