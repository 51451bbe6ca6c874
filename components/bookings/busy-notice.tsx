"use client";

import type { BusyGpu } from "@/lib/domain/booking-types";
import { buttonClass } from "@/components/ui/button-styles";

/** What someone else runs on GPUs the person picked: from the picker before submit, or from the server's 409 `gpu_in_use`. */
export interface BusyWarning {
  /** The unit's name: "GPU 1", "GPU 0:2 (1g.10gb)". */
  unit: string;
  hostName: string;
  /** As people are shown ("Bob Member"), else the login. */
  owners: string[];
  commands: string[];
}

interface BusyNoticeProps {
  gpus: BusyWarning[];
  /** The server refused (409 gpu_in_use) rather than the form warning ahead. */
  refused: boolean;
  allowBusy: boolean;
  onAllowBusy: (allow: boolean) => void;
  /** After a refusal: book again, this time anyway. */
  onBookAnyway?: () => void;
  pending?: boolean;
}

/**
 * The warning on GPUs where someone else's work runs without a booking:
 * booking them in good faith would turn that work into an "intruder" on
 * the new booking. It names whose work it is, and booking over it takes an
 * explicit choice (sent as `allowBusy`; the server records it).
 */
export function BusyNotice({ gpus, refused, allowBusy, onAllowBusy, onBookAnyway, pending = false }: BusyNoticeProps) {
  return (
    <div role="alert" data-testid="busy-notice" className="space-y-2 rounded-md border border-amber-400 bg-amber-50 px-3 py-3 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100">
      <p className="font-medium">
        {refused ? "Not booked: someone else's work runs on " : "Someone else's work runs on "}
        {gpus.length === 1 ? "this GPU" : "these GPUs"} without a booking.
      </p>
      <ul className="list-disc space-y-1 pl-5">
        {gpus.map((gpu) => (
          <li key={`${gpu.hostName}-${gpu.unit}`}>
            {gpu.unit} on {gpu.hostName}: <strong>{gpu.owners.join(", ") || "someone"}</strong>
            {gpu.commands.length > 0 && <span className="text-amber-800 dark:text-amber-300"> ({gpu.commands.join("; ")})</span>}
          </li>
        ))}
      </ul>
      <p>Booking it makes their job an intruder on your booking. Ask them first, or pick a free GPU.</p>
      {refused && onBookAnyway ? (
        <button type="button" disabled={pending} onClick={onBookAnyway} className={buttonClass("secondary", "sm")}>
          Book anyway
        </button>
      ) : (
        <label className="flex items-start gap-2">
          <input type="checkbox" checked={allowBusy} onChange={(event) => onAllowBusy(event.target.checked)} className="mt-0.5 size-4 rounded border-amber-400" />
          <span>Book anyway: I have agreed it with them</span>
        </label>
      )}
    </div>
  );
}

/** The busy GPUs out of an API error, if it is the server's `gpu_in_use` 409. */
export function busyOf(code: string, body: Record<string, unknown> | undefined): BusyWarning[] | null {
  if (code !== "gpu_in_use" || !body || !Array.isArray(body.busyGpus)) return null;
  return (body.busyGpus as BusyGpu[]).map((gpu) => ({
    unit: gpu.unit ?? `GPU ${gpu.gpuIndex}`,
    hostName: gpu.hostName,
    owners: [...new Set(gpu.processes.map((process) => process.ownerName))],
    commands: gpu.processes.map((process) => process.command).filter((command): command is string => Boolean(command)).slice(0, 3),
  }));
}
