import { processEvent } from "@/server/core/process-events";

/** "Usage minutes were stored" (a rollup flush that wrote some): idle release looks again at once rather than at its next pass. */
const minutesStored = processEvent<void>("__gpudeskMinutesStoredListeners", "usage minutes stored");

export const onMinutesStored = (listener: () => void): (() => void) => minutesStored.on(listener);
export const announceMinutesStored = (): void => minutesStored.emit();
