import { log } from "@/server/core/log";

/**
 * The process's one event bus: what services announce (after a commit, after
 * a pass) and the custom server's listeners hear. Next's route bundles load
 * their own copy of every module while the listeners run in the custom
 * server's, so the listeners hang off one `globalThis` slot, `__gpudeskEvents`,
 * shared by both (docs/development.md, "Shared between Next's route bundles
 * and the custom server").
 *
 * Every channel is listed here, with what it carries in words; its payload's
 * type is given where the channel is opened (`eventChannel<T>(name)`), in the
 * one module that announces on it and lets others listen.
 */
export const EVENT_CHANNELS = {
  bookingsChanged: "booking changes: each change of a booking, once, and what bookings are judged by",
  alertChanged: "alert changes",
  inventoryChanged: "inventory changes",
  minutesStored: "usage minutes stored",
  unitsFreed: "units freed",
  personNotice: "person notices",
  slurmReservationMissing: "a missing Slurm reservation",
} as const;

export type EventChannelName = keyof typeof EVENT_CHANNELS;

type Listener = (value: never) => void;

const shared = globalThis as unknown as { __gpudeskEvents?: Map<EventChannelName, Set<Listener>> };

function listenersOf(name: EventChannelName): Set<Listener> {
  const bus = (shared.__gpudeskEvents ??= new Map());
  let listeners = bus.get(name);
  if (!listeners) bus.set(name, (listeners = new Set()));
  return listeners;
}

export interface EventChannel<T> {
  /** Listens until the returned function is called. */
  on(listener: (value: T) => void): () => void;
  /** Tells every listener; one that throws is logged and keeps none of the others from hearing. */
  emit(value: T): void;
}

/** The channel `name` of the bus, carrying `T`. */
export function eventChannel<T>(name: EventChannelName): EventChannel<T> {
  return {
    on(listener) {
      const listeners = listenersOf(name);
      listeners.add(listener as Listener);
      return () => {
        listeners.delete(listener as Listener);
      };
    },
    emit(value) {
      for (const listener of listenersOf(name)) {
        try {
          (listener as (value: T) => void)(value);
        } catch (error) {
          log.error(`a listener of ${EVENT_CHANNELS[name]} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    },
  };
}
