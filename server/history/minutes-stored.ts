import { eventChannel } from "@/server/core/event-bus";

/** "Usage minutes were stored" (a rollup flush that wrote some): idle release looks again at once rather than at its next pass. */
const minutesStored = eventChannel<void>("minutesStored");

export const onMinutesStored = (listener: () => void): (() => void) => minutesStored.on(listener);
export const announceMinutesStored = (): void => minutesStored.emit();
