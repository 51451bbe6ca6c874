"use client";

import { useLayoutEffect, useState, type RefObject } from "react";

/**
 * Whether the browser skips rendering the `content-visibility: auto`
 * element inside `ref` (it is far from the viewport), as its
 * `contentvisibilityautostatechange` events say. The listener is on the
 * container in the capture phase, so the element may be any descendant, and
 * is attached before the browser's first rendering update reports a state.
 * False until the browser says, and always where it never does.
 */
export function useContentSkipped(ref: RefObject<HTMLElement | null>): boolean {
  const [skipped, setSkipped] = useState(false);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const onChange = (event: Event) => setSkipped(Boolean((event as Event & { skipped?: boolean }).skipped));
    element.addEventListener("contentvisibilityautostatechange", onChange, { capture: true });
    return () => element.removeEventListener("contentvisibilityautostatechange", onChange, { capture: true });
  }, [ref]);
  return skipped;
}
