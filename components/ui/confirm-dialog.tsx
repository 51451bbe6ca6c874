"use client";

import { useEffect, useId, useRef } from "react";
import { buttonClass } from "@/components/ui/button-styles";

interface ConfirmDialogProps {
  open: boolean;
  /** Also the dialog's accessible name, e.g. "Revoke token laptop?". */
  title: string;
  children?: React.ReactNode;
  confirmLabel: string;
  /** The button that closes the dialog without acting; "Cancel" unless that word names the action itself. */
  dismissLabel?: string;
  pendingLabel?: string;
  pending?: boolean;
  /** What the server said when the action failed; the dialog stays open to show it. */
  error?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}

/**
 * A modal question before something that cannot be undone. The native
 * <dialog> traps focus, closes on Escape and restores focus afterwards.
 */
export function ConfirmDialog({ open, title, children, confirmLabel, dismissLabel = "Cancel", pendingLabel, pending = false, error, onConfirm, onCancel }: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(event) => {
        // Escape while the request runs would hide its outcome.
        event.preventDefault();
        if (!pending) onCancel();
      }}
      className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-xl text-left border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-950/50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
    >
      <div className="space-y-3 p-5">
        <h2 id={titleId} className="text-lg font-semibold">
          {title}
        </h2>
        {children && <div className="space-y-2 text-sm text-slate-600 dark:text-slate-300">{children}</div>}
        {error && (
          <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
            {error}
          </p>
        )}
      </div>
      <div className="flex justify-end gap-2 border-t border-slate-200 bg-slate-50 px-5 py-3 dark:border-slate-700 dark:bg-slate-950/40">
        <button type="button" onClick={onCancel} disabled={pending} className={buttonClass("secondary")}>
          {dismissLabel}
        </button>
        <button type="button" onClick={onConfirm} disabled={pending} className={buttonClass("danger")}>
          {pending ? (pendingLabel ?? `${confirmLabel}…`) : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
