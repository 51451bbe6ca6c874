import type { AlertUpdate } from "@/lib/domain/alerts";
import { eventChannel } from "@/server/core/event-bus";

/**
 * "An alert opened, closed or was acknowledged": the monitor and the
 * acknowledge route announce it, the /live pusher and the webhooks listen.
 */
const alertChanged = eventChannel<AlertUpdate>("alertChanged");

export const onAlertChanged = alertChanged.on;
export const announceAlertChanged = alertChanged.emit;
