import { useId } from "react";

/**
 * The server's field messages are phrased to follow the field's name ("is
 * required", "is taken"); a message that is already a sentence is shown as is.
 */
export function fieldErrorText(label: string, message: string): string {
  const sentence = /^[a-z]/.test(message) ? `${label} ${message}` : message;
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** A control's look without its width and height, for inline controls in tables (add a `py-*`). */
export const controlClass =
  "rounded-md border bg-white px-3 text-base shadow-sm focus:outline-none focus:ring-2 sm:text-sm dark:bg-slate-900 " +
  "border-slate-300 focus:border-sky-500 focus:ring-sky-500/30 dark:border-slate-700 " +
  "aria-[invalid=true]:border-red-500 aria-[invalid=true]:focus:ring-red-500/30 dark:aria-[invalid=true]:border-red-400";

/** A form field's control: full width of its field. */
export const inputClass = `block w-full py-2 ${controlClass}`;

interface FieldProps {
  label: string;
  /** The server's message for this field, if any. */
  error?: string;
  hint?: React.ReactNode;
  className?: string;
  /** Renders the control; spread the given props onto it so that label, hint and error are wired up. */
  children: (control: { id: string; "aria-invalid": boolean; "aria-describedby": string | undefined }) => React.ReactNode;
}

/** A labelled control with its hint and its error underneath, announced by screen readers with the control. */
export function Field({ label, error, hint, className, children }: FieldProps) {
  const id = useId();
  const hintId = hint && !error ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [errorId, hintId].filter(Boolean).join(" ") || undefined;
  return (
    <div className={className}>
      <label htmlFor={id} className="mb-1 block text-sm font-medium">
        {label}
      </label>
      {children({ id, "aria-invalid": Boolean(error), "aria-describedby": describedBy })}
      {error && (
        <p id={errorId} className="mt-1 text-sm text-red-700 dark:text-red-300">
          {fieldErrorText(label, error)}
        </p>
      )}
      {hintId && (
        <p id={hintId} className="mt-1 text-xs text-slate-500 dark:text-slate-400">
          {hint}
        </p>
      )}
    </div>
  );
}

/** A message about the whole form (a conflict, a lost connection); fields keep what was typed. */
export function FormAlert({ children, tone = "error" }: { children: React.ReactNode; tone?: "error" | "warn" }) {
  const look =
    tone === "error"
      ? "border-red-200 bg-red-50 text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200"
      : "border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100";
  return (
    <div role="alert" className={`rounded-md border px-3 py-2 text-sm ${look}`}>
      {children}
    </div>
  );
}
