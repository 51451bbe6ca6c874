import { eventChannel } from "@/server/core/event-bus";

/** "A host's inventory changed" (a GPU joined or left, a MIG layout changed): stored, then announced with the host and the time of the reading. */
const inventoryChanged = eventChannel<{ hostId: string; at: Date }>("inventoryChanged");

export const onInventoryChanged = (listener: (change: { hostId: string; at: Date }) => void): (() => void) => inventoryChanged.on(listener);
export const announceInventoryChanged = (change: { hostId: string; at: Date }): void => inventoryChanged.emit(change);
