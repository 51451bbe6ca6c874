"use client";

import { useEffect, useId, useRef } from "react";
import { CopyButton } from "@/components/ui/copy-button";
import { buttonClass } from "@/components/ui/button-styles";

interface SecretRevealProps {
  /** Heading, e.g. "Token for ci-runner". */
  title: string;
  /** Accessible name of the secret's box, e.g. "New token". */
  label: string;
  secret: string;
  /** Ways to use it (commands, URLs), each typically a CopyBlock. */
  children?: React.ReactNode;
  onDismiss: () => void;
}

/**
 * A secret shown this once: the server keeps only its hash, so leaving the
 * page loses it for good. Said plainly, next to a copy button.
 */
export function SecretReveal({ title, label, secret, children, onDismiss }: SecretRevealProps) {
  const headingId = useId();
  const inputId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);

  // It may appear far from the button that made it (rotating a host's token at the bottom of a long table).
  useEffect(() => {
    headingRef.current?.focus();
  }, [secret]);

  return (
    <section
      aria-labelledby={headingId}
      className="space-y-4 rounded-xl border border-emerald-300 bg-emerald-50 p-4 sm:p-5 dark:border-emerald-800 dark:bg-emerald-950/60"
    >
      <div>
        <h2 id={headingId} ref={headingRef} tabIndex={-1} className="scroll-mt-20 text-base font-semibold text-emerald-950 outline-none dark:text-emerald-100">
          {title}
        </h2>
        <p className="mt-1 flex items-start gap-1.5 text-sm font-medium text-amber-900 dark:text-amber-200">
          <svg aria-hidden viewBox="0 0 20 20" className="mt-0.5 size-4 shrink-0" fill="currentColor">
            <path fillRule="evenodd" d="M8.5 2.9a1.7 1.7 0 0 1 3 0l6.3 11.4A1.7 1.7 0 0 1 16.3 17H3.7a1.7 1.7 0 0 1-1.5-2.6L8.5 2.9ZM10 7a.8.8 0 0 0-.8.8v3.4a.8.8 0 0 0 1.6 0V7.8A.8.8 0 0 0 10 7Zm0 8a1 1 0 1 0 0-2 1 1 0 0 0 0 2Z" clipRule="evenodd" />
          </svg>
          Copy it now. It will not be shown again: gpudesk keeps only a fingerprint of it.
        </p>
      </div>
      <div>
        <div className="mb-1 flex items-center justify-between gap-2">
          <label htmlFor={inputId} className="text-sm font-medium text-emerald-950 dark:text-emerald-100">
            {label}
          </label>
          <CopyButton text={secret} name="Copy token" />
        </div>
        {/* Two lines where a phone cannot fit the token on one; one line from `sm` up. */}
        <textarea
          id={inputId}
          readOnly
          rows={2}
          value={secret}
          onFocus={(event) => event.currentTarget.select()}
          spellCheck={false}
          className="block w-full resize-none rounded-md border border-emerald-300 bg-white px-3 py-2 font-mono text-sm break-all text-slate-900 sm:h-10 dark:border-emerald-800 dark:bg-slate-950 dark:text-slate-100"
        />
      </div>
      {children}
      <button type="button" onClick={onDismiss} className={buttonClass("secondary", "sm")}>
        I have copied it
      </button>
    </section>
  );
}

/** A command or URL to copy, with what it is for. `copyName` names its button, e.g. "Copy command". */
export function CopyBlock({ label, text, copyName }: { label: string; text: string; copyName: string }) {
  return (
    <div>
      <div className="mb-1 flex items-center justify-between gap-2">
        <p className="text-sm font-medium text-emerald-950 dark:text-emerald-100">{label}</p>
        <CopyButton text={text} name={copyName} />
      </div>
      <pre className="overflow-x-auto rounded-md bg-slate-900 px-3 py-2.5 text-sm text-slate-100 dark:bg-black">
        <code className="whitespace-pre-wrap wrap-anywhere">{text}</code>
      </pre>
    </div>
  );
}
