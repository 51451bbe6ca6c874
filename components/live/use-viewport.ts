"use client";

import { useSyncExternalStore } from "react";
import type { Viewport } from "@/lib/display-layout";

/**
 * The window's inner size in CSS pixels, updated on resize (a wall screen
 * rotated, a kiosk browser entering full screen). Null during server
 * rendering, where there is no screen to fit.
 */
let cached: Viewport | null = null;

function read(): Viewport {
  const width = document.documentElement.clientWidth || window.innerWidth;
  const height = document.documentElement.clientHeight || window.innerHeight;
  // The same object while the size holds, or useSyncExternalStore would render forever.
  if (!cached || cached.width !== width || cached.height !== height) cached = { width, height };
  return cached;
}

function subscribe(listener: () => void): () => void {
  window.addEventListener("resize", listener);
  return () => window.removeEventListener("resize", listener);
}

const readOnServer = () => null;

export function useViewport(): Viewport | null {
  return useSyncExternalStore(subscribe, read, readOnServer);
}
