import type { AlertUpdate } from "@/lib/domain/alerts";
import { processEvent } from "@/server/core/process-events";

/**
 * "An alert opened, closed or was acknowledged": the monitor and the
 * acknowledge route announce it, the /live pusher and the webhooks listen.
 */
const alertChanged = processEvent<AlertUpdate>("__gpudeskAlertListeners", "alert changes");

export const onAlertChanged = alertChanged.on;
export const announceAlertChanged = alertChanged.emit;
