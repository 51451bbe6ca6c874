import { log } from "@/server/core/log";

/**
 * An in-process event that services announce after a commit and the custom
 * server listens to. The listeners live on globalThis because Next's route
 * bundles load their own copy of each module, while the listeners run in
 * the custom server's; `key` names the slot there.
 */
export function processEvent<T>(key: string, what: string) {
  const shared = globalThis as unknown as Record<string, Set<(value: T) => void> | undefined>;
  const listeners = () => (shared[key] ??= new Set());
  return {
    on(listener: (value: T) => void): () => void {
      listeners().add(listener);
      return () => {
        listeners().delete(listener);
      };
    },
    emit(value: T): void {
      for (const listener of listeners()) {
        try {
          listener(value);
        } catch (error) {
          // One failing listener must not keep the others from hearing it.
          log.error(`a listener of ${what} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    },
  };
}
