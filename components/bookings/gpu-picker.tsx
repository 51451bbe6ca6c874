"use client";

import { slurmHoldName } from "@/lib/domain/slurm";
import type { BookableHost } from "@/lib/domain/booking-types";
import { formatGiB } from "@/lib/format/format";
import { unitRef } from "@/lib/domain/gpu-availability";
import { formatWhen } from "@/lib/format/local-time";
import { personName } from "@/lib/format/person-name";
import type { LiveBooking } from "@/lib/live/live";
import { pickerGpu, type LiveView, type PickerGpu, type PickerKind, type Window } from "@/components/bookings/picker-state";

interface GpuPickerProps {
  host: BookableHost;
  selected: number[];
  onToggle: (index: number) => void;
  /** MIG slices picked ("0:2"), and their toggle. */
  selectedSlices?: string[];
  onToggleSlice?: (ref: string) => void;
  live: LiveView;
  window: Window | null;
  nowMs: number;
  /** The signed-in person: their own unbooked job does not count as someone else's. */
  viewerId: string;
  /** Everyone named on the page. */
  people: LiveBooking["bookedBy"][];
  describedBy?: string;
  invalid?: boolean;
}

const LOOK: Record<PickerKind, { tile: string; dot: string; note: string }> = {
  free: {
    tile: "border-emerald-300 bg-white hover:border-emerald-500 dark:border-emerald-800 dark:bg-slate-900 dark:hover:border-emerald-600",
    dot: "bg-free",
    note: "text-emerald-700 dark:text-emerald-400",
  },
  busy: {
    tile: "border-amber-400 bg-amber-50 hover:border-amber-600 dark:border-amber-700 dark:bg-amber-950/60 dark:hover:border-amber-500",
    dot: "bg-amber-500",
    note: "text-amber-900 dark:text-amber-200",
  },
  mine: {
    tile: "border-sky-300 bg-white hover:border-sky-500 dark:border-sky-800 dark:bg-slate-900 dark:hover:border-sky-600",
    dot: "bg-sky-500",
    note: "text-sky-800 dark:text-sky-300",
  },
  taken: {
    tile: "border-slate-200 bg-slate-100 text-slate-500 dark:border-slate-800 dark:bg-slate-900/60 dark:text-slate-400",
    dot: "bg-slate-400",
    note: "",
  },
  error: {
    tile: "border-red-300 bg-white hover:border-red-500 dark:border-red-800 dark:bg-slate-900",
    dot: "bg-red-500",
    note: "text-red-700 dark:text-red-300",
  },
  offline: {
    tile: "border-dashed border-slate-300 bg-white dark:border-slate-700 dark:bg-slate-900",
    dot: "bg-slate-400",
    note: "text-slate-500 dark:text-slate-400",
  },
  unknown: {
    tile: "border-slate-300 bg-white hover:border-slate-400 dark:border-slate-700 dark:bg-slate-900",
    dot: "bg-slate-300",
    note: "text-slate-500 dark:text-slate-400",
  },
};

/** "Bob Member runs python train.py", "Bob Member and carol run …": who is on a GPU, for its tile and its warning. */
export function runnersText(gpu: Pick<PickerGpu, "runners">): string {
  const names = gpu.runners.length > 2 ? `${gpu.runners.slice(0, 2).join(", ")} and ${gpu.runners.length - 2} more` : gpu.runners.join(" and ");
  return names;
}

/**
 * The GPUs of one host as toggles, each in its state's colour with who runs
 * there. A GPU booked by someone during the chosen time cannot be picked and
 * says by whom until when; one running someone else's work can, but says
 * whose it is (the form then asks to confirm); one running only the
 * viewer's own work says that booking it claims it.
 */
export function GpuPicker({ host, selected, onToggle, selectedSlices = [], onToggleSlice, live, window, nowMs, viewerId, people, describedBy, invalid }: GpuPickerProps) {
  return (
    <ul role="list" aria-describedby={describedBy} className="grid grid-cols-2 gap-2 sm:grid-cols-4" data-invalid={invalid || undefined}>
      {host.gpus.map((gpu) => {
        if (gpu.partitioned) {
          // Not bookable: its slices follow it, each a tile of its own.
          return (
            <li key={gpu.uuid} className="col-span-2 sm:col-span-4">
              <p className="text-xs font-medium text-slate-600 dark:text-slate-300">
                GPU {gpu.index} ({gpu.name.replace(/^NVIDIA /, "")}) is split into MIG slices: book a slice
              </p>
            </li>
          );
        }
        const view = pickerGpu(gpu, host.id, live, window, nowMs, viewerId);
        const reading = live.gpus[gpu.uuid];
        const ref = unitRef(gpu);
        const pressed = gpu.mig ? selectedSlices.includes(ref) : selected.includes(gpu.index);
        const freeMemory = reading && reading.memoryTotalMiB !== null && reading.memoryUsedMiB !== null ? reading.memoryTotalMiB - reading.memoryUsedMiB : null;
        const note = tileNote(view, freeMemory, nowMs, people);
        const look = LOOK[view.kind];
        return (
          <li key={gpu.uuid}>
            <button
              type="button"
              aria-pressed={pressed}
              disabled={view.kind === "taken" && !pressed}
              aria-label={`${gpu.mig ? `MIG slice ${ref} ${gpu.mig.profile}` : `GPU ${gpu.index}`}, ${note}`}
              data-kind={view.kind}
              onClick={() => (gpu.mig ? onToggleSlice?.(ref) : onToggle(gpu.index))}
              className={`flex h-full w-full flex-col items-start gap-1 rounded-lg border p-3 text-left text-sm transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500 disabled:cursor-not-allowed ${
                pressed ? "border-sky-500 bg-sky-50 ring-2 ring-sky-500/40 dark:border-sky-400 dark:bg-sky-950" : look.tile
              }`}
            >
              <span className="flex w-full items-center justify-between gap-2">
                <span className="font-semibold">{gpu.mig ? `GPU ${ref} · ${gpu.mig.profile}` : `GPU ${gpu.index}`}</span>
                {/* The state's dot stays when picked, so a busy GPU still looks busy. */}
                <span aria-hidden className={`size-2.5 rounded-full ${look.dot}`} />
              </span>
              <span className="truncate text-xs text-slate-500 dark:text-slate-400" title={gpu.name}>
                {gpu.mig ? `MIG slice of ${gpu.name.replace(/^NVIDIA /, "")}` : gpu.name.replace(/^NVIDIA /, "")}
              </span>
              <span data-testid="picker-note" className={`text-xs ${look.note}`}>
                {note}
              </span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}

function tileNote(view: PickerGpu, freeMemory: number | null, nowMs: number, people: LiveBooking["bookedBy"][]): string {
  switch (view.kind) {
    case "taken":
      if (view.taken) return `booked by ${personName(view.taken.bookedBy, people)} until ${nowMs ? formatWhen(view.taken.endsAt, nowMs) : ""}`;
      if (view.slurm) return `held by ${slurmHoldName(view.slurm)} until ${nowMs ? formatWhen(view.slurm.endsAt, nowMs) : ""}`;
      return "booked";
    case "busy":
      return `in use without a booking: ${view.unseen ?? runnersText(view)}`;
    case "mine":
      return "your job runs here: booking claims it";
    case "error":
      return "reports a fault";
    case "offline":
      // Not "host …": the tiles' names must not read like the Host field's label.
      return "offline, no readings";
    case "unknown":
      return "checking what runs…";
    case "free":
      return freeMemory !== null ? `free, ${formatGiB(freeMemory)} free` : "free";
  }
}
