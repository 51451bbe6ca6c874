/**
 * Idle release as the pages, the CLI and the webhooks put it into words
 * (the rule itself is server/bookings/rules/idle-rule.ts).
 */

/** A booking's idle standing in the bookings API (`idle` of a BookingView). */
export interface BookingIdleView {
  /** "idle": counting; "warning": the release is announced; "released": idle release ended it. */
  phase: "idle" | "warning" | "due" | "released";
  /** Start of the idle run. */
  idleSince: string;
  /** When the release comes unless the GPUs are used (later if readings pause); for "released", when it came. */
  releaseAt: string | null;
  idleMinutes: number;
  keepsLeft: number;
  /** Exempt from idle release: never warned or released. */
  exempt: boolean;
  /** The policy only reports: nothing is released. */
  reportOnly: boolean;
}

/** A process still on a GPU of the booking: releasing does not stop it. */
export interface IdleHoldingProcess {
  pid: number;
  command: string | null;
  usedMemoryMiB: number | null;
  gpuIndex: number;
}

/** `reservation:idle` on /live and the body of the personal webhooks `reservation.idle_warning` / `reservation.idle_released`. */
export interface IdleNotice {
  event: "reservation.idle_warning" | "reservation.idle_released";
  reservationId: string;
  userId: string;
  hostName: string;
  gpuIndices: number[];
  /** The booking's units by their one name: "GPU 0:2 (1g.10gb)", "GPUs 2, 3"; across nodes its shape, "2 × 4 H100". */
  units: string;
  /** The booking named once, as every surface names it: "GPUs 2, 3 on node-a", "2 × 4 H100 on node-a and node-b" (lib/domain/multi-node.ts). */
  booked: string;
  purpose: string;
  idleSince: string;
  /** The coming release (warning) or the moment it came (released). */
  releaseAt: string;
  keepsLeft: number;
  reportOnly: boolean;
  holding: IdleHoldingProcess[];
}

function clock(iso: string, format: (iso: string) => string): string {
  return format(iso);
}

/** "2 h", "45 min", "1 h 30 min". */
export function idleDuration(minutes: number): string {
  const hours = Math.floor(minutes / 60);
  const rest = Math.round(minutes % 60);
  if (hours === 0) return `${rest} min`;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

/**
 * "Idle since 12:05 — released at 14:05 unless used", or "Released after
 * 2 h idle at 14:05"; `format` writes a time in the reader's zone.
 */
export function idleSentence(view: BookingIdleView, format: (iso: string) => string): string {
  if (view.phase === "released") {
    const minutes = view.releaseAt ? (Date.parse(view.releaseAt) - Date.parse(view.idleSince)) / 60_000 : view.idleMinutes;
    return `Released after ${idleDuration(minutes)} idle${view.releaseAt ? ` at ${clock(view.releaseAt, format)}` : ""}`;
  }
  const since = `Idle since ${clock(view.idleSince, format)}`;
  if (view.exempt || !view.releaseAt) return since;
  const verb = view.reportOnly ? "would be released" : "released";
  return `${since} — ${verb} at ${clock(view.releaseAt, format)} unless used`;
}

/** "your python (pid 4242) still holds 29 GiB; releasing the booking does not stop it". */
export function holdingSentence(holding: readonly IdleHoldingProcess[]): string | null {
  if (holding.length === 0) return null;
  const parts = holding.slice(0, 3).map((process) => {
    const name = process.command?.split(/[\s/]/).filter(Boolean).pop() ?? "process";
    const memory = process.usedMemoryMiB !== null ? ` still holds ${formatGiB(process.usedMemoryMiB)}` : " still runs";
    return `your ${name} (pid ${process.pid})${memory}`;
  });
  const more = holding.length > 3 ? ` and ${holding.length - 3} more` : "";
  return `${parts.join(", ")}${more}; releasing the booking does not stop it`;
}

function formatGiB(mib: number): string {
  const gib = mib / 1024;
  return gib >= 10 ? `${Math.round(gib)} GiB` : `${Math.round(gib * 10) / 10} GiB`;
}

/** The keep sentence: how many are left, or that none are. */
/** What Keep did, said back at once: "Kept: the idle clock starts again now. It is released at 16:30 at the earliest if it stays idle. No keeps left: …" */
export function keptSentence(idle: { releaseAt: string | null; keepsLeft: number } | null, clock: (iso: string) => string): string {
  const until = idle?.releaseAt ? ` It is released at ${clock(idle.releaseAt)} at the earliest if it stays idle.` : "";
  return `Kept: the idle clock starts again now.${until} ${keepsSentence(idle?.keepsLeft ?? 0)}`;
}

export function keepsSentence(keepsLeft: number): string {
  if (keepsLeft <= 0) return "No keeps left: use the GPUs or extend the booking to keep them.";
  return keepsLeft === 1 ? "You can keep it once more." : `You can keep it ${keepsLeft} more times.`;
}
