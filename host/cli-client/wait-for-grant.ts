import os from "node:os";
import type { MultiNodeBookingView, BookingView } from "@/lib/domain/booking-types";
import { multiNodeSummary } from "@/lib/domain/multi-node";
import { describeUnbookedWork, type WaitlistView, waitReasonSentence } from "@/lib/domain/waitlist-schema";
import { callApi } from "@/host/cli-client/api-client";
import type { ClientConfig } from "@/host/cli-client/client-config";
import { APIError, UsageError } from "@/host/cli-client/cli-errors";
import { formatTime } from "@/host/cli-client/format-output";

const POLL_MS = 3_000;
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** The waitlist body for a booking body: the waitlist takes a duration, counted from the grant. */
export function waitRequest(body: Record<string, unknown>, nowMs: number): Record<string, unknown> {
  if (body.gpus !== undefined) throw new UsageError("--wait works with -n (any N GPUs), not with --gpus");
  return {
    count: body.count,
    ...(body.host !== undefined ? { host: body.host } : {}),
    ...(body.minFreeMemoryMiB !== undefined ? { minFreeMemoryMiB: body.minFreeMemoryMiB } : {}),
    ...waitingTime(body, nowMs),
  };
}

/** The waitlist body across nodes (`gpudesk reserve --nodes N --gpus-per-node M --wait`): granted whole, every node at once. */
export function waitRequestAcrossNodes(body: Record<string, unknown>, nowMs: number): Record<string, unknown> {
  return {
    nodes: body.nodes,
    gpusPerNode: body.gpusPerNode,
    ...(body.model !== undefined ? { model: body.model } : {}),
    ...waitingTime(body, nowMs),
  };
}

/** How long, what for and for which team: an end time becomes a duration from now (the waitlist counts from the grant). */
function waitingTime(body: Record<string, unknown>, nowMs: number): Record<string, unknown> {
  const durationMinutes = typeof body.endsAt === "string" ? Math.max(1, Math.round((Date.parse(body.endsAt) - nowMs) / 60_000)) : body.durationMinutes;
  return { durationMinutes, purpose: body.purpose, ...(body.team !== undefined ? { team: body.team } : {}) };
}

/**
 * Books now, or with `wait` joins the waitlist when the GPUs are taken and
 * polls until the request is granted. Interrupted while waiting, it leaves
 * the queue (and gives back a grant that raced the signal).
 */
export async function bookOrWait(config: ClientConfig, body: Record<string, unknown>, wait: boolean): Promise<BookingView> {
  return bookOrWaitFor(config, body, wait ? waitRequest : null, (id) => callApi<BookingView>(config, "GET", `/api/v1/reservations/${encodeURIComponent(id)}`));
}

/**
 * Books across nodes now, or with `wait` joins the waitlist for the whole
 * booking (granted with every node at once) and answers the booking, each
 * node with its launch lines, once granted.
 */
export async function bookNodesOrWait(config: ClientConfig, body: Record<string, unknown>, wait: boolean): Promise<MultiNodeBookingView> {
  return bookOrWaitFor(config, body, wait ? waitRequestAcrossNodes : null, async (id) => {
    const read = (partId: string) => callApi<BookingView>(config, "GET", `/api/v1/reservations/${encodeURIComponent(partId)}`);
    const first = await read(id);
    const parts = [first];
    for (const part of first.multiNode?.parts.slice(1) ?? []) parts.push(await read(part.id));
    return multiNodeSummary(parts);
  });
}

async function bookOrWaitFor<Booking>(
  config: ClientConfig,
  body: Record<string, unknown>,
  waitBody: ((body: Record<string, unknown>, nowMs: number) => Record<string, unknown>) | null,
  granted: (bookingId: string) => Promise<Booking>,
): Promise<Booking> {
  try {
    return await callApi<Booking>(config, "POST", "/api/v1/reservations", body);
  } catch (error) {
    if (!waitBody || !(error instanceof APIError) || error.status !== 409) throw error;
    process.stderr.write(`gpudesk: ${error.message}\n`);
  }
  const entry = await callApi<WaitlistView>(config, "POST", "/api/v1/waitlist", waitBody(body, Date.now()));
  process.stderr.write(
    `gpudesk: waiting for GPUs (request ${entry.id}, position ${entry.position}${estimateNote(entry)}); Ctrl-C leaves the queue\n`,
  );

  const leave = async (signal: NodeJS.Signals) => {
    try {
      await leaveQueue(config, entry.id);
      process.stderr.write(`gpudesk: left the waitlist\n`);
    } finally {
      process.exit(128 + (os.constants.signals[signal] ?? 1));
    }
  };
  const onSignal = (signal: NodeJS.Signals) => void leave(signal);
  for (const signal of SIGNALS) process.on(signal, onSignal);
  try {
    let position = entry.position;
    let lastNote = estimateNote(entry);
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const now = await callApi<WaitlistView>(config, "GET", `/api/v1/waitlist/${encodeURIComponent(entry.id)}`);
      if (now.status === "granted" && now.reservationId) {
        process.stderr.write(`gpudesk: granted\n`);
        return await granted(now.reservationId);
      }
      if (now.status !== "waiting") throw new UsageError(`The waiting request ${entry.id} ${now.status === "expired" ? "expired" : "was withdrawn"}`);
      const note = estimateNote(now);
      if (now.position !== position || note !== lastNote) {
        position = now.position;
        lastNote = note;
        process.stderr.write(`gpudesk: position ${position}${note}\n`);
      }
    }
  } finally {
    for (const signal of SIGNALS) process.off(signal, onSignal);
  }
}

/**
 * What Ctrl-C does while waiting: withdraws the request, and when the
 * server answers that it was granted first (the grant won the race), gives
 * the GPUs back, so that an interrupted wait never leaves a booking behind.
 */
export async function leaveQueue(config: ClientConfig, entryId: string): Promise<"left" | "released"> {
  const left = await callApi<WaitlistView>(config, "DELETE", `/api/v1/waitlist/${encodeURIComponent(entryId)}`);
  if (left.status !== "granted" || !left.reservationId) return "left";
  await callApi(config, "POST", `/api/v1/reservations/${encodeURIComponent(left.reservationId)}/release`);
  return "released";
}

/**
 * ", waits for the team vision's limit: 2 of 3 GPUs at once in use, …;
 * estimated start 2026-12-01 14:05Z": why the request waits (the server's
 * one sentence for it, as /queue shows it, in this machine's local time) and the queue's estimate;
 * a server older than the reason gives the unbooked work alone; "" with
 * neither.
 */
export function estimateNote(entry: Pick<WaitlistView, "estimatedStartAt" | "waitsForUnbookedWork"> & Partial<Pick<WaitlistView, "waitingBecause">>): string {
  const why = entry.waitingBecause ? `, ${waitReasonSentence(entry.waitingBecause, formatTime)}` : entry.waitsForUnbookedWork ? `, ${describeUnbookedWork(entry.waitsForUnbookedWork)}` : "";
  // Unbooked work counts as never ending: a time beside it is an upper bound.
  const unbooked = entry.waitingBecause ? entry.waitingBecause.kind === "unbooked_use" : entry.waitsForUnbookedWork !== null;
  const start = entry.estimatedStartAt ? `, estimated start ${formatTime(entry.estimatedStartAt)}${unbooked ? " at the latest" : ""}` : "";
  return `${why}${start}`;
}
