import type { PrismaClient } from "@prisma/client";
import { policyTimeRefusal, type RequestedTimes, requestedWindow } from "@/lib/domain/booking-window";
import type { MultiNodeRequest, BookingRequest } from "@/lib/domain/booking-schema";
import { AppError } from "@/server/core/errors";
import type { ServiceOptions } from "@/server/access/actor";
import type { HostRef, Window } from "@/server/bookings/placement/booking-candidates";
import type { LiveGpuSource } from "@/server/bookings/placement/gpu-in-use";
import type { UnitsRequest } from "@/server/bookings/placement/place-units";
import type { PolicyValues } from "@/server/bookings/rules/policy";
import type { Tx } from "@/server/bookings/store/booking-transaction";

export interface CreateOptions extends ServiceOptions {
  fleet?: LiveGpuSource;
  /**
   * Something the booking must take first, in the same transaction (the
   * waitlist's entry): `before` runs once every check passed, just before the
   * insert, and refuses with an AppError when the thing is gone (nothing is
   * written then); `after` links it to the new booking.
   */
  claim?: { before(tx: Tx): Promise<void>; after(tx: Tx, bookingId: string): Promise<void> };
}

/** Where a booking's parts go: units on one host (any host the limits allow, or the one named), any N nodes, or the nodes named. */
export type PartsWanted =
  | { kind: "one-host"; hosts: HostRef[]; units: UnitsRequest }
  | { kind: "any-nodes"; hosts: HostRef[]; nodes: number; gpusPerNode: number; model?: string }
  | { kind: "named-nodes"; parts: { host: HostRef; units: UnitsRequest }[] };

/** A request to book, whatever its shape, as book() takes it: checked times, the candidate hosts, what each part asks for. */
export interface BookingOrder {
  window: Window;
  /** The field that set the end ("endsAt" or "durationMinutes"): a refusal of the length names it. */
  endField: "endsAt" | "durationMinutes";
  purpose: string;
  /** The team the booking is for (name or id); the person's accounting team when absent. */
  team?: string;
  where: PartsWanted;
  /** The form's field that asked for the GPUs: the person cap's refusal names it. */
  capField: string;
  /** Book named units over someone else's running job (asked for on one host; across nodes, never). */
  allowBusy: boolean;
}

/** A one-host request (POST /api/v1/reservations): the GPUs or slices named on a host, or any N of them on any host. */
export async function oneHostOrder(client: PrismaClient, request: BookingRequest, now: Date): Promise<BookingOrder> {
  const { window, endField } = checkedWindow(request, now);
  const hosts = await candidateHosts(client, request.host);
  const units: UnitsRequest = request.slices
    ? { kind: "named-slices", slices: request.slices }
    : request.slice
      ? { kind: "any-slices", count: request.count ?? 1, slice: request.slice }
      : request.gpus
        ? { kind: "named-gpus", gpus: request.gpus }
        : { kind: "any-gpus", count: request.count ?? 1, minFreeMemoryMiB: request.minFreeMemoryMiB };
  return {
    window,
    endField,
    purpose: request.purpose,
    team: request.team,
    where: { kind: "one-host", hosts, units },
    capField: request.slices ? "slices" : request.gpus ? "gpus" : "count",
    allowBusy: request.allowBusy === true,
  };
}

/** A request across nodes: any `nodes` hosts with `gpusPerNode` GPUs each, or the parts named (a host and a number of GPUs or their indices). */
export async function acrossNodesOrder(client: PrismaClient, request: MultiNodeRequest, now: Date): Promise<BookingOrder> {
  const { window, endField } = checkedWindow(request, now);
  const common = { window, endField, purpose: request.purpose, team: request.team, allowBusy: false };
  if (request.parts) {
    const parts = [];
    for (const part of request.parts) {
      const [host] = await candidateHosts(client, part.host);
      const units: UnitsRequest = typeof part.gpus === "number" ? { kind: "any-gpus", count: part.gpus, model: request.model } : { kind: "named-gpus", gpus: part.gpus };
      parts.push({ host, units });
    }
    return { ...common, where: { kind: "named-nodes", parts }, capField: "parts" };
  }
  const hosts = await candidateHosts(client, undefined);
  return { ...common, where: { kind: "any-nodes", hosts, nodes: request.nodes as number, gpusPerNode: request.gpusPerNode as number, model: request.model }, capField: "gpusPerNode" };
}

/** The window asked for, refused when it starts in the past or ends before it starts; `endField` names the field that set the end. */
export function checkedWindow(request: RequestedTimes, now: Date): { window: Window; endField: "endsAt" | "durationMinutes" } {
  const { startMs, endMs, startInPast } = requestedWindow(request, now.getTime());
  const endField = request.endsAt !== undefined ? "endsAt" : "durationMinutes";
  if (startInPast) {
    throw new AppError("bad_request", "The start time has passed", { startsAt: "This time has passed: start now or later" });
  }
  if (endMs <= startMs) throw new AppError("bad_request", "The end must be after the start", { [endField]: "The end must be after the start" });
  return { window: { startMs, endMs, nowMs: now.getTime() }, endField };
}

/** The host named, or every host with GPUs (by name) when none is; an unknown name is the request's error. */
export async function candidateHosts(client: PrismaClient, name: string | undefined): Promise<HostRef[]> {
  if (name !== undefined) {
    const host = await client.host.findUnique({ where: { name }, select: { id: true, name: true, topology: true } });
    if (!host) throw new AppError("bad_request", `There is no host named ${name}`, { host: `There is no host named ${name}` });
    return [host];
  }
  const hosts = await client.host.findMany({ where: { gpus: { some: {} } }, select: { id: true, name: true, topology: true }, orderBy: { name: "asc" } });
  if (hosts.length === 0) throw new AppError("bad_request", "No host with GPUs is known yet", { count: "No host with GPUs is known yet" });
  return hosts;
}

/** The policy's earliest start, latest start and longest booking, refused on the field that asked. */
export function checkPolicyTimes(policy: PolicyValues, window: Window, endField: string): void {
  const refusal = policyTimeRefusal(policy, window.startMs, window.endMs, window.nowMs);
  if (refusal) throw new AppError("bad_request", refusal.message, { [refusal.field === "duration" ? endField : "startsAt"]: refusal.message });
}
