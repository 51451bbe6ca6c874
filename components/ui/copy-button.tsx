"use client";

import { useEffect, useState } from "react";
import { buttonClass } from "@/components/ui/button-styles";

/**
 * The Clipboard API exists only on secure pages (https, localhost); gpudesk
 * is often reached as http://gpu-server:3000 on a lab network, so the old
 * selection-based copy is the fallback.
 */
async function copyText(text: string): Promise<boolean> {
  if (window.isSecureContext && navigator.clipboard) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // Denied permission: try the fallback below.
    }
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  try {
    return document.execCommand("copy");
  } catch {
    return false;
  } finally {
    area.remove();
  }
}

interface CopyButtonProps {
  text: string;
  /** What is copied; the button is then named "Copy <label>". */
  label?: string;
  /**
   * The button's whole accessible name instead ("Copy token"). Use it when a
   * field labelled like `label` sits next to the button, so that the field's
   * label does not also match the button.
   */
  name?: string;
}

/** Copies `text`; says so for two seconds, or asks for a manual copy when the browser refuses. */
export function CopyButton({ text, label, name }: CopyButtonProps) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");

  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), state === "copied" ? 2000 : 5000);
    return () => clearTimeout(timer);
  }, [state]);

  return (
    <span className="inline-flex items-center gap-2">
      <button
        type="button"
        aria-label={name ?? (label ? `Copy ${label}` : "Copy")}
        onClick={async () => setState((await copyText(text)) ? "copied" : "failed")}
        className={buttonClass("secondary", "sm")}
      >
        {state === "copied" ? "Copied" : "Copy"}
      </button>
      <span role="status" className="text-xs text-slate-500 dark:text-slate-400">
        {state === "copied" ? <span className="sr-only">Copied to the clipboard</span> : state === "failed" ? "Select the text and copy it by hand" : null}
      </span>
    </span>
  );
}
