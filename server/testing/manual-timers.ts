import type { JobTimers } from "@/server/core/jobs";

/** A job's clock that the test moves: `fire()` is one beat of every job on it, and the first beat of a delayed start. */
export function manualTimers(): JobTimers & { fire(): void } {
  const every = new Set<() => void>();
  const once = new Set<() => void>();
  return {
    every(callback) {
      every.add(callback);
      return { cancel: () => every.delete(callback) };
    },
    once(callback) {
      once.add(callback);
      return { cancel: () => once.delete(callback) };
    },
    fire() {
      const due = [...once];
      once.clear();
      for (const callback of [...due, ...every]) callback();
    },
  };
}
